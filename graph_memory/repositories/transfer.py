"""A tenant's graph, node by node and relationship by relationship, in JSON-safe values.

Property values cross as JSON: strings, numbers, booleans and lists of them as they are;
the driver's temporal values as ``{"$datetime": "<ISO 8601>"}`` (a zoned datetime keeps
its offset and nanoseconds; the store writes UTC only, so no zone name is lost) (also ``$date``,
``$localdatetime``, ``$time``, ``$duration``), so an import gives Neo4j back the very type it
held. Anything else (a point, a byte array) is refused by name rather than written wrong.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timezone
from typing import Any

from neo4j.time import Date, DateTime, Duration, Time

from graph_memory.db import Database

__all__ = ["TransferRepository", "decode_value", "encode_value"]

_SCALARS = (str, int, float, bool, type(None))


def _is_local(value: DateTime) -> bool:
    return value.tzinfo is None


def encode_value(value: Any) -> Any:
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, list):
        return [encode_value(v) for v in value]
    if isinstance(value, DateTime):
        tag = "$localdatetime" if _is_local(value) else "$datetime"
        return {tag: value.iso_format()}
    if isinstance(value, Date):
        return {"$date": value.iso_format()}
    if isinstance(value, Time):
        return {"$time": value.iso_format()}
    if isinstance(value, Duration):
        return {"$duration": value.iso_format()}
    raise ValueError(f"a property of type {type(value).__name__} cannot be exported")


def decode_value(value: Any) -> Any:
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, list):
        return [decode_value(v) for v in value]
    if isinstance(value, dict) and len(value) == 1:
        ((tag, text),) = value.items()
        if isinstance(text, str):
            if tag == "$localdatetime":
                return DateTime.from_iso_format(text)
            if tag == "$datetime":
                return _fixed_offset(DateTime.from_iso_format(text))
            if tag == "$date":
                return Date.from_iso_format(text)
            if tag == "$time":
                return Time.from_iso_format(text)
            if tag == "$duration":
                return _duration(text)
    raise ValueError(f"not an exported property value: {value!r}"[:200])


def _fixed_offset(value: DateTime) -> DateTime:
    """The parser names +00:00 "UTC", which the driver would store as a zone id (printing
    ``Z[UTC]``): a plain offset is what was stored, so that is what goes back."""
    offset = value.utcoffset()
    if offset is None:
        return value
    return value.replace(tzinfo=timezone(offset))


def _duration(text: str) -> Duration:
    # neo4j.time.Duration has no ISO parser; its own iso_format is PnYnMnDTnHnMnS.
    import re

    m = re.fullmatch(
        r"P(?:(-?\d+)Y)?(?:(-?\d+)M)?(?:(-?\d+)D)?(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?[\d.]+)S)?)?",
        text,
    )
    if m is None:
        raise ValueError(f"not an ISO 8601 duration: {text!r}")
    y, mo, d, h, mi, sec = (g or "0" for g in m.groups())
    return Duration(
        years=int(y),
        months=int(mo),
        days=int(d),
        hours=int(h),
        minutes=int(mi),
        seconds=float(sec),
    )


def _props(raw: dict[str, Any]) -> dict[str, Any]:
    return {k: encode_value(v) for k, v in sorted(raw.items())}


class TransferRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def nodes(self, tenant: str) -> AsyncIterator[tuple[str, list[str], dict[str, Any]]]:
        """(element id, labels, JSON-safe properties) of every node of the tenant."""
        async for r in self._db.stream("transfer.nodes", {"tenant": tenant}):
            yield r["id"], sorted(r["labels"]), _props(r["props"])

    async def relationships(
        self, tenant: str
    ) -> AsyncIterator[tuple[str, str, str, dict[str, Any]]]:
        """(type, source element id, target element id, properties) leaving the tenant's
        nodes."""
        async for r in self._db.stream("transfer.relationships", {"tenant": tenant}):
            yield r["type"], r["source"], r["target"], _props(r["props"])

    async def count(self, tenant: str) -> int:
        rows = await self._db.read("transfer.count", {"tenant": tenant})
        return int(rows[0]["nodes"]) if rows else 0

    async def create_nodes(self, rows: list[dict[str, Any]]) -> dict[int, str]:
        """Create nodes ``{key, labels, props}`` (props as exported); export key -> element
        id."""
        decoded = [
            {
                "key": r["key"],
                "labels": r["labels"],
                "props": {k: decode_value(v) for k, v in r["props"].items()},
            }
            for r in rows
        ]
        out = await self._db.write("transfer.create_nodes", {"rows": decoded})
        return {int(r["key"]): str(r["id"]) for r in out}

    async def create_relationships(self, rows: list[dict[str, Any]]) -> int:
        """Create relationships ``{type, source, target, props}`` between element ids."""
        decoded = [
            {**r, "props": {k: decode_value(v) for k, v in r["props"].items()}} for r in rows
        ]
        out = await self._db.write("transfer.create_relationships", {"rows": decoded})
        return int(out[0]["created"]) if out else 0

    async def delete_nodes(self, ids: list[str]) -> None:
        for start in range(0, len(ids), 1000):
            await self._db.write("transfer.delete_nodes", {"ids": ids[start : start + 1000]})
