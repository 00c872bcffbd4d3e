"""Citations and premises stay inside what the fact's readers may see.

A fact's provenance serves the summaries of the episodes it cites, and ``dependsOn`` the
premises it rests on, to anyone who can read the fact. A fact in ``user:alice`` citing bob's
episode would serve bob's words to a read scoped to alice. So a fact may cite (and depend on)
only what every reader of its scope may read anyway:

* the same scope, or ``tenant`` (shared by the whole tenant);
* a scope of the other kind: a ``team:*`` or ``tenant`` fact citing a user's episode (writing
  the fact in the wider scope is the statement that its evidence is shared that widely), or a
  user's fact citing a team's episode (team membership is not modelled: a team's evidence may
  back its members' facts).

What is refused is the leak the issue found: another user's (or another team's) words behind
a fact of ``user:alice`` (or ``team:x``).

Refused otherwise, per item, with VALIDATION naming ``episodes`` or ``dependsOn``; the rest of
the batch still lands. The check runs before the write from a read of the cited episodes and
premises: scopes never change once written, so what that read found cannot go stale (an
episode deleted meanwhile is the write's own NOT_FOUND). An episode it did not find yet may be
recorded before the write (remember's id is derived from its key): the write checks the
episodes again as it reads them under its lock (rules.check_citation_scopes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from graph_memory.domain import FactInput, Principal, parse_scope
from graph_memory.errors import ValidationError
from graph_memory.repositories.episodes import EpisodeRepository
from graph_memory.repositories.facts import FactRepository
from graph_memory.versions import FactVersion

__all__ = ["may_cite", "out_of_scope", "refused"]


def _kind(scope: str) -> str:
    return scope.split(":", 1)[0]


def may_cite(fact_scope: str, source_scope: str) -> bool:
    """Whether the readers of ``fact_scope`` may be shown what lives in ``source_scope``: not
    when both are scopes of one kind (user, team) and differ."""
    if source_scope in (fact_scope, "tenant"):
        return True
    return _kind(fact_scope) != _kind(source_scope)


async def out_of_scope(
    principal: Principal,
    items: Sequence[FactInput],
    episodes: EpisodeRepository,
    facts: FactRepository,
) -> dict[int, ValidationError]:
    """The items (by index) that cite an episode or depend on a fact their readers may not
    see. Items whose scope or citations are invalid for other reasons are left to the write,
    which reports them."""
    episode_ids = sorted({c.episode_id for f in items for c in f.citations})
    premise_ids = sorted({d for f in items for d in f.depends_on})
    cited = await episodes.get(principal.tenant, episode_ids) if episode_ids else {}
    premises = await facts.get(principal.tenant, premise_ids) if premise_ids else {}
    return refused(items, cited, premises)


def refused(
    items: Sequence[FactInput],
    cited: Mapping[str, Mapping[str, object]],
    premises: Mapping[str, FactVersion],
) -> dict[int, ValidationError]:
    """``out_of_scope`` on episodes and premises already read (those of forgotten
    contributors left out: the write refuses them for that)."""
    refused: dict[int, ValidationError] = {}
    for i, item in enumerate(items):
        scope = _scope_of(item, cited)
        if scope is None:
            continue
        for c in item.citations:
            ep = cited.get(c.episode_id)
            if ep is not None and not may_cite(scope, str(ep["scope"])):
                refused[i] = ValidationError(
                    f"episode {c.episode_id} is in {ep['scope']}, which a read of {scope} may "
                    f"not see: cite episodes of {scope} or tenant, or write the fact in a "
                    "scope wide enough to share it",
                    field="episodes",
                )
                break
        if i in refused:
            continue
        for d in item.depends_on:
            premise = premises.get(d)
            if premise is not None and not may_cite(scope, premise.scope):
                refused[i] = ValidationError(
                    f"premise {d} is in {premise.scope}, which a read of {scope} may not see",
                    field="dependsOn",
                )
                break
    return refused


def _scope_of(item: FactInput, cited: Mapping[str, Mapping[str, object]]) -> str | None:
    if item.scope:
        try:
            return parse_scope(item.scope)
        except ValidationError:
            return None
    if not item.citations:
        return None
    first = cited.get(item.citations[0].episode_id)
    return str(first["scope"]) if first is not None else None
