"""A new user follows README.md literally: the CLI commands it shows (run as subprocesses against
the already-running local Neo4j), `graph-memory serve` in a subprocess, the GraphQL examples read
out of the README itself (only placeholders substituted), the Python clients it names, the saved
Browser queries, and the error behaviour it promises. The README is the user's contract here:
where it and the code disagree, the test keeps the README's claim and is a strict xfail."""

from __future__ import annotations

import os
import re
import socket
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from neo4j import GraphDatabase

from graph_memory.cli import build_parser
from graph_memory.client import AsyncGraphMemoryClient, GraphMemoryClient, GraphMemoryClientError
from graph_memory.settings import Settings, local_password_file
from tests.integration.conftest import elapse_ttl

REPO = Path(__file__).resolve().parents[2]
# The console script installed next to this interpreter (the venv may live elsewhere:
# GRAPH_MEMORY_VENV in scripts/dev.sh).
GM = str(Path(sys.executable).parent / "graph-memory")
README = (REPO / "README.md").read_text()


def _graphql_blocks() -> list[str]:
    return re.findall(r"```graphql\n(.*?)```", README, flags=re.S)


def _operations(block: str) -> list[str]:
    """Split a README block into its operations (each starts at column 0 with query/mutation)."""
    return [op.strip() for op in re.split(r"(?m)^(?=(?:mutation|query)\b)", block) if op.strip()]


def _block(root_field: str) -> str:
    (block,) = [b for b in _graphql_blocks() if f"{root_field}(" in b.split("{", 1)[1][:40]]
    return block


OPS = _operations(_block("recordEpisodes"))  # record, assert, facts in June 2026, history
RECALL_OP = _block("recall").strip()
REMEMBER_OP = _block("remember").strip()


# -- the service and the CLI, as a user runs them ---------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    """`graph-memory serve --port N` in a subprocess, stopped (by its own pid) at the end."""
    port = _free_port()
    endpoint = f"http://127.0.0.1:{port}/graphql"
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [GM, "serve", "--port", str(port)], stdout=log, stderr=log, cwd=REPO
        )
        try:
            deadline = time.monotonic() + 90
            while True:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError(f"graph-memory serve did not start:\n{log.read()!r}")
                try:
                    httpx.post(endpoint, json={"query": "{ __typename }"}, timeout=2)
                    break
                except httpx.TransportError:
                    time.sleep(0.2)
            yield endpoint
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def gm(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GM, *args], capture_output=True, text=True, timeout=90, cwd=cwd)


def create_key(tenant: str, role: str = "agent", name: str = "support-bot") -> tuple[str, str]:
    """The README's `keys create`; returns (key id, secret) parsed from what it prints."""
    out = gm("keys", "create", "--tenant", tenant, "--role", role, "--name", name)
    assert out.returncode == 0, out.stderr
    key_id = re.search(r"\b(key_[0-9a-f]+)\b", out.stdout)
    secret = re.search(r"\b(gm_\S+)", out.stdout)
    assert key_id and secret, out.stdout
    return key_id.group(1), secret.group(1)


def new_tenant() -> str:
    return f"rdm-{uuid.uuid4().hex[:10]}"


def post(url: str, key: str | None, query: str, variables: dict[str, Any] | None = None) -> Any:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.post(url, json={"query": query, "variables": variables or {}}, headers=headers)


def gql(url: str, key: str, query: str, variables: dict[str, Any] | None = None) -> Any:
    resp = post(url, key, query, variables)
    body = resp.json()
    assert resp.status_code == 200 and not body.get("errors"), body
    return body["data"]


def codes(url: str, key: str, query: str, variables: dict[str, Any] | None = None) -> list[str]:
    """Every extensions.code in the answer, top-level and per item."""
    text = post(url, key, query, variables).text
    return re.findall(r'"code":\s*"([A-Z_]+)"', text)


@pytest.fixture
def agent(url: str) -> str:
    return create_key(new_tenant())[1]


def asked(as_of: str | None = None, valid_at: str | None = None) -> str:
    """The README's `facts` example with its asOf/validAt swapped (None: the default, now)."""
    args = "".join(f', {k}: "{v}"' for k, v in (("asOf", as_of), ("validAt", valid_at)) if v)
    out, n = re.subn(r',\s*validAt: "[^"]*"', args, OPS[2])
    assert n == 1, OPS[2]
    return out


def objects(url: str, key: str, query: str) -> list[str]:
    return [e["node"]["object"] for e in gql(url, key, query)["facts"]["edges"]]


def readme_writes(url: str, key: str) -> tuple[str, dict[str, Any]]:
    """The README's first two mutations, unchanged but for `<id>`: (episode id, assert result)."""
    (ep,) = gql(url, key, OPS[0])["recordEpisodes"]
    assert ep["ok"] and ep["error"] is None, ep
    out = gql(url, key, OPS[1].replace("<id>", ep["id"]))["assertFacts"]
    return ep["id"], out


# -- the GraphQL examples -----------------------------------------------------------------------
def test_readme_has_the_examples_this_suite_follows() -> None:
    code = [re.sub(r"#.*", "", op) for op in OPS]  # the first root field, comments aside
    assert [op.split("(")[0].split()[-1] for op in code] == [
        "recordEpisodes", "assertFacts", "facts", "history"
    ]  # fmt: skip
    assert "recall(" in RECALL_OP and "context(" in RECALL_OP


def test_readme_remember_writes_the_episode_and_the_fact_citing_it(url: str, agent: str) -> None:
    got = gql(url, agent, REMEMBER_OP)["remember"]
    assert got["episodeError"] is None and got["facts"]["accepted"] == 1
    (edge,) = gql(url, agent, OPS[2])["facts"]["edges"]
    assert [p["episodeId"] for p in edge["node"]["provenance"]] == [got["episodeId"]]
    assert gql(url, agent, REMEMBER_OP)["remember"] == got  # replayed under its key


def test_readme_record_then_assert_creates_berlin_version_one(url: str, agent: str) -> None:
    _, out = readme_writes(url, agent)
    assert (out["accepted"], out["rejected"]) == (1, 0)
    (r,) = out["results"]
    assert (r["ok"], r["action"], r["version"], r["status"], r["error"]) == (
        True, "created", 1, "ACTIVE", None
    )  # fmt: skip
    # "capped by the trust tier (... user 0.95 ...)": a user-sourced fact from one session.
    assert 0 < r["confidence"] <= 0.95


def test_readme_assert_replayed_with_its_idempotency_key_changes_nothing(
    url: str, agent: str
) -> None:
    ep, first = readme_writes(url, agent)
    again = gql(url, agent, OPS[1].replace("<id>", ep))["assertFacts"]
    assert again == first
    versions = gql(url, agent, OPS[3])["history"]["versions"]
    assert [(v["object"], v["version"]) for v in versions] == [("Berlin", 1)]
    # The same key with another batch is refused, not silently replayed.
    other = OPS[1].replace("<id>", ep).replace('"Berlin"', '"Munich"')
    assert codes(url, agent, other) == ["CONFLICT"]


def test_readme_facts_query_runs_unchanged_and_answers_berlin(url: str, agent: str) -> None:
    ep, _ = readme_writes(url, agent)
    # Believed now, true in June 2026: Berlin, with the README's selected fields filled in.
    (edge,) = gql(url, agent, OPS[2])["facts"]["edges"]
    node = edge["node"]
    assert (node["object"], node["version"], node["supersededAt"], node["validTo"]) == (
        "Berlin", 1, None, None
    )  # fmt: skip
    assert node["validFrom"].startswith("2026-01-01T00:00:00")
    assert [(p["episodeId"], p["userId"]) for p in node["provenance"]] == [(ep, "alice")]
    assert 0 < node["provenance"][0]["weight"] <= 1


def test_readme_facts_query_with_the_as_of_its_comment_suggests(url: str, agent: str) -> None:
    """The comment's promise: asOf a moment before the write sees nothing, after it Berlin."""
    before = datetime.now(UTC).isoformat()
    readme_writes(url, agent)
    after = datetime.now(UTC).isoformat()
    june = "2026-06-01T00:00:00Z"
    assert objects(url, agent, asked(as_of=before, valid_at=june)) == []
    assert objects(url, agent, asked(as_of=after, valid_at=june)) == ["Berlin"]


def test_readme_time_rule_paris_in_2024_after_berlin_since_january(url: str, agent: str) -> None:
    """The same question believed now: 'where did Alice live in 2024?' keeps answering Paris."""
    ep, _ = readme_writes(url, agent)
    paris = OPS[1].replace("<id>", ep).replace('"Berlin"', '"Paris"')
    paris = paris.replace("2026-01-01T00:00:00Z", "2018-01-01T00:00:00Z").replace("-42", "-43")
    assert gql(url, agent, paris)["assertFacts"]["results"][0]["ok"]
    assert objects(url, agent, asked(valid_at="2024-06-01T00:00:00Z")) == ["Paris"]
    assert objects(url, agent, asked()) == ["Berlin"]


def test_readme_history_example_after_a_move(url: str, agent: str) -> None:
    ep, _ = readme_writes(url, agent)
    munich = OPS[1].replace("<id>", ep).replace('"Berlin"', '"Munich"')
    munich = munich.replace("2026-01-01", "2026-02-01").replace("-42", "-44")
    assert gql(url, agent, munich)["assertFacts"]["results"][0]["action"] == "superseded"
    versions = sorted(gql(url, agent, OPS[3])["history"]["versions"], key=lambda v: v["version"])
    assert [(v["object"], v["version"], v["status"]) for v in versions] == [
        ("Berlin", 1, "SUPERSEDED"), ("Munich", 2, "ACTIVE")
    ]  # fmt: skip
    assert versions[0]["supersededAt"] is not None and versions[1]["supersededAt"] is None
    assert all(v["retractedAt"] is None and v["recordedAt"] for v in versions)


def test_readme_recall_and_context_example(url: str, agent: str) -> None:
    ep, _ = readme_writes(url, agent)
    data = gql(url, agent, RECALL_OP)
    items = data["recall"]["items"]
    assert 0 < len(items) <= 5
    top = items[0]
    assert top["kind"] == "FACT" and "Berlin" in top["text"]
    assert top["score"]["total"] == max(i["score"]["total"] for i in items)
    assert [(e["episodeId"], e["userId"]) for e in top["provenance"]["episodes"]] == [(ep, "alice")]
    ctx = data["context"]
    assert "Berlin" in ctx["text"] and 0 < ctx["tokens"] <= 300
    assert ctx["text"].index("Berlin") < ctx["text"].index("moved from Paris")  # facts first


def test_readme_time_section_rome_paris_berlin_story(url: str, agent: str) -> None:
    """README: '"Rome since 2023", "Paris", "Berlin since 2019" told in that order: Paris now,
    Rome in 2024, Berlin in 2020.'"""
    told = [("Rome", "2023-01-01T00:00:00Z"), ("Paris", None), ("Berlin", "2019-01-01T00:00:00Z")]
    for i, (city, since) in enumerate(told):
        (ep,) = gql(url, agent, OPS[0].replace('"s1"', f'"s{i + 1}"').replace("T10:", f"T1{i}:"))[
            "recordEpisodes"
        ]
        item = {"subject": "Alice", "predicate": "lives_in", "object": city, "source": "user",
                "episodes": [{"episodeId": ep["id"]}], "validFrom": since}  # fmt: skip
        q = "mutation($f: [FactInput!]!) { assertFacts(facts: $f) { accepted } }"
        assert gql(url, agent, q, {"f": [item]})["assertFacts"]["accepted"] == 1
    for when, city in ((None, "Paris"), ("2024-06-01", "Rome"), ("2020-06-01", "Berlin")):
        got = objects(url, agent, asked(valid_at=when and f"{when}T00:00:00Z"))
        assert got == [city], (when or "now", got)


def test_readme_sessions_are_user_and_session_id_and_three_promote_a_candidate(
    url: str, agent: str
) -> None:
    """'two users' "s1" are two independent conversations'; conversation facts 'stay CANDIDATE
    until three distinct sessions support them'."""
    statuses = []
    for user in ("alice", "bob", "carol"):
        (ep,) = gql(url, agent, OPS[0].replace('"alice"', f'"{user}"'))["recordEpisodes"]
        item = {"subject": "Alice", "predicate": "likes", "object": "jazz", "scope": "tenant",
                "source": "conversation", "episodes": [{"episodeId": ep["id"]}]}  # fmt: skip
        q = "mutation($f: [FactInput!]!) { assertFacts(facts: $f) { results { status } } }"
        statuses.append(gql(url, agent, q, {"f": [item]})["assertFacts"]["results"][0]["status"])
    assert statuses == ["CANDIDATE", "CANDIDATE", "ACTIVE"]


def test_readme_said_time_rules(url: str, agent: str) -> None:
    """README: "Lives in Paris" told today, then "in Berlin since 2024", gives Berlin; and "a March
    session replayed after a September one does not replace September's answer"."""
    q = "mutation($f: [FactInput!]!) { assertFacts(facts: $f) { accepted } }"

    def tell(session: str, started: str, predicate: str, city: str, since: str | None) -> None:
        ep_q = OPS[0].replace('"s1"', f'"{session}"').replace("2026-03-01T10:00:00Z", started)
        (ep,) = gql(url, agent, re.sub(r'endedAt: "[^"]*",\s*', "", ep_q))["recordEpisodes"]
        assert ep["ok"], ep
        item = {"subject": "Alice", "predicate": predicate, "object": city, "validFrom": since,
                "episodes": [{"episodeId": ep["id"]}], "cardinality": "ONE"}  # fmt: skip
        assert gql(url, agent, q, {"f": [item]})["assertFacts"]["accepted"] == 1, city

    today = datetime.now(UTC).replace(microsecond=0).isoformat()
    tell("t1", today, "lives_in", "Paris", None)
    tell("t2", today, "lives_in", "Berlin", "2024-01-01T00:00:00Z")
    assert objects(url, agent, asked()) == ["Berlin"]
    tell("sep", "2026-09-01T10:00:00Z", "home_city", "Lyon", None)
    tell("mar", "2026-03-01T10:00:00Z", "home_city", "Nice", None)  # arrives later, said earlier
    assert objects(url, agent, asked().replace('"lives_in"', '"home_city"')) == ["Lyon"]


def test_readme_history_as_of_before_the_move_shows_it_as_it_stood(url: str, agent: str) -> None:
    """'Reads as of a past moment show each version as it stood then' (in `history` too)."""
    ep, _ = readme_writes(url, agent)
    munich = OPS[1].replace("<id>", ep).replace('"Berlin"', '"Munich"').replace("-42", "-46")
    gql(url, agent, munich.replace("2026-01-01", "2026-02-01"))
    now = gql(url, agent, OPS[3])["history"]["versions"]
    moved = max(datetime.fromisoformat(v["recordedAt"]) for v in now)
    just_before = (moved - timedelta(microseconds=1)).isoformat()
    before = OPS[3].replace(
        'scopes: ["user:alice"]', f'scopes: ["user:alice"], asOf: "{just_before}"'
    )
    then = gql(url, agent, before)["history"]["versions"]
    assert [(v["object"], v["status"], v["supersededAt"]) for v in then] == [
        ("Berlin", "ACTIVE", None)
    ]


# -- keys and errors ----------------------------------------------------------------------------
def test_keys_create_prints_the_key_once_and_list_never_shows_it(url: str) -> None:
    tenant = new_tenant()
    key_id, secret = create_key(tenant, "agent", "support-bot")
    listed = gm("keys", "list", "--tenant", tenant)
    assert listed.returncode == 0, listed.stderr
    header, line = listed.stdout.splitlines()
    assert header.split("\t") == ["ID", "TENANT", "ROLE", "NAME", "STATE"]
    assert line.split("\t") == [key_id, tenant, "agent", "support-bot", "active"]
    assert secret not in listed.stdout and "gm_" not in listed.stdout
    # The printed key works, and the tenant comes from it: the README's write lands in `tenant`.
    readme_writes(url, secret)
    other = create_key(new_tenant())[1]
    assert gql(url, other, OPS[3])["history"]["versions"] == []


def test_keys_revoke_turns_the_key_into_a_401(url: str) -> None:
    tenant = new_tenant()
    key_id, secret = create_key(tenant)
    out = gm("keys", "revoke", key_id)
    assert out.returncode == 0 and key_id in out.stdout, out.stderr
    assert gm("keys", "list", "--tenant", tenant).stdout.split("\t")[-1].strip() == "revoked"
    resp = post(url, secret, OPS[3])
    assert resp.status_code == 401
    assert resp.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"


def test_a_key_in_use_stops_working_within_seconds_of_revoke(url: str) -> None:
    key_id, secret = create_key(new_tenant())
    assert post(url, secret, OPS[3]).status_code == 200  # the server now knows the key
    assert gm("keys", "revoke", key_id).returncode == 0
    deadline = time.monotonic() + 15  # the server caches a key for 10 s (services/access/keys.py)
    while post(url, secret, OPS[3]).status_code != 401:
        assert time.monotonic() < deadline, "revoked key still accepted after 15 s"
        time.sleep(0.5)


def test_keys_revoke_of_the_readme_placeholder_id_fails_in_one_line() -> None:
    out = gm("keys", "revoke", "key_1234abcd")
    assert out.returncode == 1
    assert out.stderr.strip() == "graph-memory: no active key key_1234abcd"
    assert "Traceback" not in out.stderr and out.stdout == ""


def test_no_key_or_a_bad_key_is_http_401_unauthenticated(url: str) -> None:
    for key in (None, "gm_not-a-real-key"):
        resp = post(url, key, OPS[3])
        assert resp.status_code == 401, key
        assert resp.headers["www-authenticate"] == "Bearer"
        assert [e["extensions"]["code"] for e in resp.json()["errors"]] == ["UNAUTHENTICATED"]
    # `serve` without flags listens where the README's GraphiQL address says.
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port) == ("127.0.0.1", 8000)
    # GraphiQL itself opens without a key, so the README's "add the header" step is possible.
    page = httpx.get(url, headers={"Accept": "text/html"})
    assert page.status_code == 200 and "graphiql" in page.text.lower()


def test_readme_error_codes_come_back_in_extensions(url: str) -> None:
    tenant = new_tenant()
    agent, admin = create_key(tenant)[1], create_key(tenant, "admin", "ops")[1]
    ep, _ = readme_writes(url, agent)
    naive = OPS[0].replace("T10:00:00Z", "T10:00:00")
    assert "VALIDATION" in codes(url, agent, naive)  # "naive ones are refused with VALIDATION"
    retract = 'mutation($id: ID!) { retractFact(id: $id, reason: "wrong") { id status } }'
    assert codes(url, agent, retract, {"id": "fact_nope"}) == ["NOT_FOUND"]
    forget = 'mutation { forgetContributor(userId: "alice") { receipt } }'
    assert codes(url, agent, forget) == ["FORBIDDEN"]
    # An admin-tier fact cannot be superseded by a user-tier write.
    team = {"subject": "Alice", "predicate": "works_at", "object": "ACME", "source": "admin",
            "episodes": [{"episodeId": ep}]}  # fmt: skip
    q = """mutation($f: [FactInput!]!) { assertFacts(facts: $f) {
             accepted results { ok factId error { code } } } }"""
    (fid,) = [r["factId"] for r in gql(url, admin, q, {"f": [team]})["assertFacts"]["results"]]
    user_write = {**team, "object": "Initech", "source": "user"}
    assert codes(url, agent, q, {"f": [user_write]}) == ["TIER_CONFLICT"]
    assert gql(url, admin, retract, {"id": fid})["retractFact"]["status"] == "RETRACTED"
    assert codes(url, admin, retract, {"id": fid}) == ["CONFLICT"]


def test_readme_batch_each_item_reports_its_own_error_and_valid_items_land(
    url: str, agent: str
) -> None:
    ep, _ = readme_writes(url, agent)
    q = """mutation($f: [FactInput!]!) { assertFacts(facts: $f) {
             accepted rejected results { index ok error { code field } } } }"""
    good = {"subject": "Alice", "predicate": "likes", "object": "jazz",
            "episodes": [{"episodeId": ep}]}  # fmt: skip
    bad = {**good, "object": "opera", "episodes": [{"episodeId": "<id>"}]}  # placeholder left in
    out = gql(url, agent, q, {"f": [bad, good]})["assertFacts"]
    assert (out["accepted"], out["rejected"]) == (1, 1)
    assert [r["ok"] for r in out["results"]] == [False, True]
    assert out["results"][0]["error"]["code"] in {"NOT_FOUND", "VALIDATION"}


# -- the Python clients the README names ----------------------------------------------------------
def _client_story() -> tuple[dict[str, Any], dict[str, Any]]:
    start = datetime(2026, 3, 1, 10, tzinfo=UTC)
    episode = {"userId": "alice", "sessionId": "s1", "startedAt": start,
               "summary": "Alice said she moved from Paris to Berlin in January.",
               "outcome": "SUCCESS", "source": "user"}  # fmt: skip
    fact = {"subject": "Alice", "predicate": "lives_in", "object": "Berlin", "source": "user",
            "validFrom": datetime(2026, 1, 1, tzinfo=UTC)}  # fmt: skip
    return episode, fact


def test_sync_client_wraps_the_readme_calls(url: str) -> None:
    secret = create_key(new_tenant())[1]
    episode, fact = _client_story()
    # The base address works as well as the /graphql one GraphiQL shows.
    with GraphMemoryClient(url.removesuffix("/graphql"), secret) as c:
        ep = c.record_episode(**episode)
        out = c.assert_facts([{**fact, "episodes": [{"episodeId": ep}]}], "import-42")
        assert out["accepted"] == 1 and out["results"][0]["status"] == "ACTIVE"
        now = c.facts(["user:alice"], subject="alice", predicate="lives_in")["edges"]
        assert [e["node"]["object"] for e in now] == ["Berlin"]
        assert [
            v["object"] for v in c.history("alice", "lives_in", ["user:alice"])["versions"]
        ] == ["Berlin"]
        assert c.recall("where does alice live?", ["user:alice", "tenant"], k=5)["items"]
        assert "Berlin" in c.context("plan alice's trip", 300, ["user:alice"])["text"]
        with pytest.raises(GraphMemoryClientError) as err:
            c.retract_fact("fact_missing")
        assert err.value.code == "NOT_FOUND"
    with GraphMemoryClient(url, "gm_wrong") as bad, pytest.raises(GraphMemoryClientError) as err:
        bad.history("alice", "lives_in", ["user:alice"])
    assert (err.value.code, err.value.status) == ("UNAUTHENTICATED", 401)


async def test_async_client_wraps_the_same_calls(url: str) -> None:
    secret = create_key(new_tenant())[1]
    episode, fact = _client_story()
    async with AsyncGraphMemoryClient(url, secret) as c:
        ep = await c.record_episode(**episode)
        out = await c.assert_facts([{**fact, "episodes": [{"episodeId": ep}]}], "import-42")
        assert out["accepted"] == 1
        past = await c.facts(["user:alice"], subject="alice", valid_at="2025-06-01T00:00:00Z")
        assert past["edges"] == []  # Berlin only since January 2026
        assert (await c.fact(out["results"][0]["factId"]) or {})["object"] == "Berlin"
        ctx = await c.context("plan alice's trip", 300, ["user:alice"])
        assert "Berlin" in ctx["text"] and ctx["tokens"] <= 300
        with pytest.raises(GraphMemoryClientError) as err:
            await c.forget_contributor("alice")  # an agent key may not
        assert err.value.code == "FORBIDDEN"
    sync = {m for m in dir(GraphMemoryClient) if not m.startswith("_")} - {"close"}
    assert sync <= {m for m in dir(AsyncGraphMemoryClient) if not m.startswith("_")}


# -- the other commands ---------------------------------------------------------------------------
def _listening_addresses(port: int) -> set[str]:
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            local, state = row.split()[1], row.split()[3]
            addr, hexport = local.split(":")
            if state == "0A" and int(hexport, 16) == port:
                found.add(addr)
    return found


def test_neo4j_status_matches_the_readme_neo4j_section() -> None:
    out = gm("neo4j", "status")
    assert out.returncode == 0, out.stderr
    # The README's defaults (7687, 7474, ~/.cache/graph-memory) unless this run moved them
    # (GRAPH_MEMORY_NEO4J_*_PORT, GRAPH_MEMORY_HOME), as a second checkout's CI does.
    settings = Settings.from_env()
    bolt, web = settings.bolt_port, settings.http_port
    for claim in ("running", "Neo4j 2026.01", "GDS 2.26", f"bolt://127.0.0.1:{bolt} (answering)",
                  f"http://127.0.0.1:{web}/browser/", str(local_password_file())):  # fmt: skip
        assert claim in out.stdout, claim
    if "GRAPH_MEMORY_HOME" not in os.environ:
        assert str(local_password_file()).endswith(".cache/graph-memory/neo4j-password")
    assert stat.S_IMODE(local_password_file().stat().st_mode) == 0o600
    assert httpx.get(f"http://127.0.0.1:{web}/browser/").status_code == 200
    # "The server listens on loopback only": 127.0.0.1 (maybe IPv4-mapped) or ::1, never any.
    loopback = ("0100007F", "00000000000000000000000001000000")
    for port in (bolt, web):
        addrs = _listening_addresses(port)
        assert addrs and all(a.endswith(loopback[0]) or a == loopback[1] for a in addrs), addrs
    logs = gm("neo4j", "logs", "-n", "3")
    assert logs.returncode == 0 and len(logs.stdout.splitlines()) == 3, logs
    assert (REPO / "scripts/lock_neo4j_jars.py").is_file()
    lock = (REPO / "graph_memory/neo4j_local/neo4j-jars.lock.json").read_text()
    assert all(f'"{k}"' in lock for k in ("group", "artifact", "version", "sha256"))


def test_graph_memory_migrate_is_safe_to_rerun() -> None:
    for _ in range(2):
        out = gm("migrate")
        assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "schema is up to date"


def test_export_schema_in_a_fresh_folder_matches_the_committed_schema(tmp_path: Path) -> None:
    out = gm("export-schema", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "schema.graphql").read_text() == (REPO / "schema.graphql").read_text()


def test_graph_memory_expire_demotes_a_fact_past_its_ttl(url: str, settings: Settings) -> None:
    tenant = new_tenant()
    secret = create_key(tenant)[1]
    ep, _ = readme_writes(url, secret)
    q = """mutation($f: [FactInput!]!) { assertFacts(facts: $f) { results { factId status } } }"""
    item = {"subject": "Alice", "predicate": "likes", "object": "jazz", "ttlDays": 1,
            "episodes": [{"episodeId": ep}]}  # fmt: skip
    (res,) = gql(url, secret, q, {"f": [item]})["assertFacts"]["results"]
    elapse_ttl(settings, tenant, res["factId"])
    out = gm("expire", "--tenant", tenant)
    assert out.returncode == 0, out.stderr
    assert f"{tenant}\texpired 1" in out.stdout
    likes = asked().replace('"lives_in"', '"likes"')
    assert objects(url, secret, likes) == []  # "reads never serve them as truth"
    hist = OPS[3].replace('"lives_in"', '"likes"')
    assert [v["status"] for v in gql(url, secret, hist)["history"]["versions"]] == ["EXPIRED"]


# -- Neo4j Browser saved queries ------------------------------------------------------------------
BROWSER = sorted((REPO / "cypher" / "browser").glob("*.cypher"))


def _header_params(text: str) -> list[str]:
    m = re.search(r"^// params:(.*)$", text, flags=re.M)
    return [p.strip() for p in m.group(1).split(",") if p.strip()] if m else []


def _browser_params(text: str) -> dict[str, str]:
    """`:param name => expr` lines in a file's opening comments (Browser's own syntax)."""
    head = "\n".join(line for line in text.splitlines() if line.startswith("//"))
    return dict(re.findall(r":param (\w+) => (.+?)(?=\s+and\s+:param|\s+then\s+:param|$)", head,
                           flags=re.M))  # fmt: skip


def test_saved_browser_queries_run_as_pasted_for_a_readme_story(
    url: str, settings: Settings
) -> None:
    tenant = new_tenant()
    secret = create_key(tenant)[1]
    ep, first = readme_writes(url, secret)
    fid = first["results"][0]["factId"]
    q = """mutation($f: [FactInput!]!) { assertFacts(facts: $f) { results { factId } } }"""
    dep = {"subject": "Alice", "predicate": "commutes_to", "object": "Berlin Mitte",
           "cardinality": "ONE", "dependsOn": [fid], "episodes": [{"episodeId": ep}]}  # fmt: skip
    gql(url, secret, q, {"f": [dep]})
    munich = OPS[1].replace("<id>", ep).replace('"Berlin"', '"Munich"').replace("-42", "-45")
    gql(url, secret, munich.replace("2026-01-01", "2026-02-01"))
    conn = settings.neo4j()
    story = {"tenant": tenant, "subject": "alice", "fact_id": fid, "user_id": "alice"}
    with GraphDatabase.driver(conn.uri, auth=(conn.user, conn.password)) as driver:
        for path in BROWSER:
            text = path.read_text()
            params: dict[str, Any] = {}
            for name, expr in _browser_params(text).items():  # evaluated as Browser would
                params[name] = driver.execute_query(f"RETURN {expr} AS v").records[0]["v"]
            params.update({k: v for k, v in story.items() if k in _header_params(text)})
            assert set(_header_params(text)) <= set(params), path.name
            rows = driver.execute_query(text, params, database_=conn.database).records
            assert rows, path.name


def test_every_saved_browser_query_starts_with_the_params_it_needs() -> None:
    missing = {
        path.name: sorted(set(_header_params(text)) - set(_browser_params(text)))
        for path in BROWSER
        if (text := path.read_text())
    }
    assert {name: need for name, need in missing.items() if need} == {}


def test_readme_audit_log_filters_and_alerts_for_analysts(url: str) -> None:
    """`auditLog(filter: {actor, target, action, from, to})` and `alerts` for analysts."""
    tenant = new_tenant()
    agent, admin = create_key(tenant)[1], create_key(tenant, "admin", "ops")[1]
    analyst = create_key(tenant, "analyst", "auditor")[1]
    start = datetime.now(UTC).isoformat()
    ep, first = readme_writes(url, agent)
    fid = first["results"][0]["factId"]
    q = "mutation($f: [FactInput!]!) { assertFacts(facts: $f) { rejected } }"
    policy = {"subject": "Alice", "predicate": "works_at", "object": "ACME", "source": "admin",
              "episodes": [{"episodeId": ep}]}  # fmt: skip
    gql(url, admin, q, {"f": [policy]})
    assert (
        gql(url, agent, q, {"f": [{**policy, "object": "Initech", "source": "user"}]})[
            "assertFacts"
        ]["rejected"]
        == 1
    )
    log = """query($f: AuditFilterInput) { auditLog(filter: $f) {
               edges { node { action targetId actor at } } } }"""
    flt = {"target": fid, "from": start, "to": datetime.now(UTC).isoformat()}
    events = [e["node"] for e in gql(url, analyst, log, {"f": flt})["auditLog"]["edges"]]
    assert events and {e["targetId"] for e in events} == {fid}
    assert codes(url, agent, log, {"f": flt}) == ["FORBIDDEN"]  # analysts and admins only
    alerts = gql(url, analyst, "query { alerts { total counts { action count } } }")["alerts"]
    assert alerts["total"] >= 1 and any(c["action"] == "tier_conflict" for c in alerts["counts"])
