"""A tenant's memory as JSON Lines, and back: `graph-memory export` / `graph-memory import`.

The export is the tenant's graph as stored, so nothing is lost in translation: facts with
every version, their timeline and supersession edges, episodes, the provenance edges between
them, entities, predicates, procedures, memos, ingest jobs, idempotency records and the audit
trail, with their vectors. API keys stay behind (the new store makes its own). Lines::

    {"kind": "header", "format": "graph-memory-export", "version": 1, "tenant": ...,
     "exported_at": ..., "embedding_model": ..., "dimensions": ...}
    {"kind": "node", "key": 0, "labels": ["Fact"], "props": {...}}        every node first
    {"kind": "rel", "type": "WINS", "source": 0, "target": 7, "props": {...}}
    {"kind": "end", "nodes": N, "relationships": M}      a cut-off file is refused

An import goes into a store that holds nothing of the tenant yet and was migrated with the
export's embedding model (vectors of two models do not compare). Every node must belong to
the header's tenant, labels and types must be plain names, and an import that fails half way
deletes what it created.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from graph_memory.domain import ACTED_FOR_FIELDS, speaker_key
from graph_memory.errors import Conflict, ValidationError
from graph_memory.repositories.transfer import TransferRepository
from graph_memory.services.access.session_tokens import acted_for_of

__all__ = ["FORMAT", "TransferSummary", "export_tenant", "import_tenant"]

FORMAT = "graph-memory-export"
VERSION = 1
_BATCH = 500
_LABEL = re.compile(r"^[A-Z][A-Za-z0-9_]{0,63}$")
_TYPE = re.compile(r"^[A-Z][A-Z0-9_]{0,63}$")
# Store-wide bookkeeping and credentials: never part of a tenant's memory.
_NOT_IMPORTED = frozenset({"ApiKey", "SchemaMigration", "EmbeddingModel", "IngestQueue"})


@dataclass(frozen=True)
class TransferSummary:
    tenant: str
    nodes: int
    relationships: int
    # Relationships to nodes outside the export (an API key), left out of it.
    skipped: int = 0


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


async def export_tenant(
    repo: TransferRepository,
    tenant: str,
    model: str,
    dimensions: int,
    write: Callable[[str], object],
) -> TransferSummary:
    """Write the tenant's graph as JSON Lines through ``write``. Export a quiet tenant: a
    write landing during the export may be half in it (a relationship to a node created after
    the node pass is left out and counted as skipped)."""
    write(
        _line(
            {
                "kind": "header",
                "format": FORMAT,
                "version": VERSION,
                "tenant": tenant,
                "exported_at": datetime.now(UTC).isoformat(),
                "embedding_model": model,
                "dimensions": dimensions,
            }
        )
    )
    keys: dict[str, int] = {}
    async for element_id, labels, props in repo.nodes(tenant):
        keys[element_id] = len(keys)
        write(_line({"kind": "node", "key": keys[element_id], "labels": labels, "props": props}))
    rels = skipped = 0
    async for rel_type, source, target, props in repo.relationships(tenant):
        if source not in keys or target not in keys:
            skipped += 1
            continue
        rels += 1
        write(
            _line(
                {
                    "kind": "rel",
                    "type": rel_type,
                    "source": keys[source],
                    "target": keys[target],
                    "props": props,
                }
            )
        )
    write(_line({"kind": "end", "nodes": len(keys), "relationships": rels}))
    return TransferSummary(tenant, len(keys), rels, skipped)


def _records(lines: Iterable[str]) -> Iterable[tuple[int, dict[str, Any]]]:
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValidationError(f"line {number}: not JSON ({e.msg})") from None
        if not isinstance(record, dict) or "kind" not in record:
            raise ValidationError(f"line {number}: not an export record")
        yield number, record


def _header(record: dict[str, Any], model: str, dimensions: int) -> str:
    if record.get("kind") != "header" or record.get("format") != FORMAT:
        raise ValidationError(f"line 1: not a {FORMAT} file")
    if record.get("version") != VERSION:
        raise ValidationError(f"format version {record.get('version')!r}: this code reads 1")
    tenant = record.get("tenant")
    if not isinstance(tenant, str) or not tenant:
        raise ValidationError("the header names no tenant")
    if (record.get("embedding_model"), record.get("dimensions")) != (model, dimensions):
        raise ValidationError(
            f"the export's vectors are from {record.get('embedding_model')} "
            f"({record.get('dimensions')} dims); this store embeds with {model} ({dimensions} "
            "dims): import into a store migrated with the export's embedder"
        )
    return tenant


def _node(number: int, record: dict[str, Any], tenant: str) -> dict[str, Any]:
    labels, props, key = record.get("labels"), record.get("props"), record.get("key")
    if not isinstance(key, int) or not isinstance(props, dict) or not isinstance(labels, list):
        raise ValidationError(f"line {number}: a node needs key, labels and props")
    if not labels or not all(isinstance(x, str) and _LABEL.match(x) for x in labels):
        raise ValidationError(f"line {number}: labels must be plain names, got {labels!r}")
    if _NOT_IMPORTED & set(labels):
        raise ValidationError(f"line {number}: {sorted(_NOT_IMPORTED & set(labels))} not imported")
    owner = props.get("id") if labels == ["Tenant"] else props.get("tenant")
    if owner != tenant:
        raise ValidationError(f"line {number}: a node of tenant {owner!r}, not {tenant!r}")
    # An export made before marks carried whom a token acted for: derived as schema 110 did,
    # or a forget of that user would not find them here.
    for label in labels:
        for field, marker in ACTED_FOR_FIELDS.get(label, ()):
            user = acted_for_of(props.get(field))
            if marker not in props and user is not None:
                props = {**props, marker: user}
    # An export made before episodes carried their speaker: derived as the store's backfill
    # does (services/store/speaker_backfill.py), or recall would not know the name. A digest
    # speaks for several turns and has none.
    if "Episode" in labels and "speaker" not in props and not props.get("digest"):
        speaker = speaker_key(str(props.get("summary") or ""))
        if speaker is not None:
            props = {**props, "speaker": speaker}
    return {"key": key, "labels": labels, "props": props}


async def import_tenant(
    repo: TransferRepository, lines: Iterable[str], model: str, dimensions: int
) -> TransferSummary:
    """Recreate an exported tenant. Raises ValidationError for a file that is not a whole,
    well-formed export of one tenant with this store's embedding model, Conflict when the
    store already holds the tenant; on any failure what was created is deleted again."""
    records = iter(_records(lines))
    first = next(records, None)
    if first is None:
        raise ValidationError("the file is empty")
    tenant = _header(first[1], model, dimensions)
    if await repo.count(tenant):
        raise Conflict(f"the store already holds tenant {tenant!r}: import into a fresh one")
    created: dict[int, str] = {}
    try:
        return await _load(repo, records, tenant, created)
    except BaseException:
        await repo.delete_nodes(list(created.values()))
        raise


async def _load(
    repo: TransferRepository,
    records: Iterable[tuple[int, dict[str, Any]]],
    tenant: str,
    created: dict[int, str],
) -> TransferSummary:
    nodes: list[dict[str, Any]] = []
    rels: list[dict[str, Any]] = []
    linked = 0
    end: dict[str, Any] | None = None
    for number, record in records:
        kind = record["kind"]
        if end is not None:
            raise ValidationError(f"line {number}: records after the end record")
        if kind == "node":
            if rels or linked:
                raise ValidationError(f"line {number}: a node after the relationships")
            nodes.append(_node(number, record, tenant))
            if len(nodes) >= _BATCH:
                created.update(await repo.create_nodes(nodes))
                nodes = []
        elif kind == "rel":
            if nodes:
                created.update(await repo.create_nodes(nodes))
                nodes = []
            rels.append(_rel(number, record, created))
            if len(rels) >= _BATCH:
                linked += await repo.create_relationships(rels)
                rels = []
        elif kind == "end":
            end = record
        else:
            raise ValidationError(f"line {number}: unknown record kind {kind!r}")
    if nodes:
        created.update(await repo.create_nodes(nodes))
    if rels:
        linked += await repo.create_relationships(rels)
    if end is None:
        raise ValidationError("the file has no end record: it was cut off")
    if (end.get("nodes"), end.get("relationships")) != (len(created), linked):
        raise ValidationError(
            f"the end record counts {end.get('nodes')} nodes and {end.get('relationships')} "
            f"relationships; the file held {len(created)} and {linked}"
        )
    return TransferSummary(tenant, len(created), linked)


def _rel(number: int, record: dict[str, Any], created: dict[int, str]) -> dict[str, Any]:
    rel_type, props = record.get("type"), record.get("props")
    source, target = record.get("source"), record.get("target")
    if not isinstance(rel_type, str) or not _TYPE.match(rel_type) or not isinstance(props, dict):
        raise ValidationError(f"line {number}: a relationship needs a plain type and props")
    if not isinstance(source, int) or not isinstance(target, int):
        raise ValidationError(f"line {number}: source and target must be node keys")
    if source not in created or target not in created:
        raise ValidationError(f"line {number}: links a node the file does not hold")
    return {"type": rel_type, "source": created[source], "target": created[target], "props": props}
