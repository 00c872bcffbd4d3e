"""`graph-memory keys list`: a header line then one key a line, or `--json` for scripts; never
the secret."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

GM = str(Path(sys.executable).parent / "graph-memory")


def gm(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GM, *args], capture_output=True, text=True, timeout=90, check=False)


def test_keys_list_has_a_header_and_a_json_form(server: str) -> None:
    del server  # migrated store
    tenant = f"t-{uuid.uuid4().hex[:10]}"
    created = gm("keys", "create", "--tenant", tenant, "--role", "analyst", "--name", "audit")
    assert created.returncode == 0, created.stderr
    secret = created.stdout.split()[-1]
    table = gm("keys", "list", "--tenant", tenant)
    header, row = table.stdout.splitlines()
    assert header.split("\t") == ["ID", "TENANT", "ROLE", "NAME", "STATE"]
    assert row.split("\t")[1:] == [tenant, "analyst", "audit", "active"]
    out = gm("keys", "list", "--tenant", tenant, "--json")
    assert out.returncode == 0, out.stderr
    (key,) = json.loads(out.stdout)
    assert key["id"] == row.split("\t")[0] and key["state"] == "active"
    assert key["created_at"] and key["revoked_at"] is None
    assert secret not in out.stdout and secret not in table.stdout
    gm("keys", "revoke", key["id"])
    (revoked,) = json.loads(gm("keys", "list", "--tenant", tenant, "--json").stdout)
    assert revoked["state"] == "revoked" and revoked["revoked_at"]
