"""How a LangGraph store item is written as a graph_memory fact, and read back. Pure: no I/O.

A namespace names a scope and a path inside it: ``("user", "alice", "prefs")`` is scope
``user:alice``, path ``("prefs",)``; ``("team", "support", ...)`` is ``team:support``;
``("tenant", ...)`` is ``tenant``. An item is one single-valued fact in that scope:

* subject ``store:<path>/<key>``, every segment percent-encoded with upper-case letters
  escaped too, because the memory matches subjects case-insensitively and a store's keys are
  exact;
* predicate ``store.item`` (cardinality ONE), so a new value is a new version that supersedes
  the old one and `history` keeps every value the item had;
* object: the value as JSON, then ``#`` and a digest of that JSON, because objects are also
  matched case-insensitively and ``{"a": "X"}`` -> ``{"a": "x"}`` must be a change;
* text: the value's words (the ``index`` fields, or every string in it), what recall embeds.
"""

from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from langgraph.store.base import InvalidNamespaceError

__all__ = [
    "PREDICATE",
    "SUBJECT_PREFIX",
    "Address",
    "address",
    "decode_object",
    "decode_subject",
    "encode_object",
    "index_text",
    "matches_filter",
    "namespace_matches",
    "scope_of",
]

PREDICATE = "store.item"
SUBJECT_PREFIX = "store:"
_SAFE = frozenset(string.ascii_lowercase + string.digits + "-_.")
_SCOPE_KINDS = ("user", "team")


@dataclass(frozen=True)
class Address:
    """Where an item lives: its scope, the namespace path inside the scope, and its key."""

    scope: str
    root: tuple[str, ...]  # the namespace labels that name the scope
    path: tuple[str, ...]
    key: str

    @property
    def namespace(self) -> tuple[str, ...]:
        return (*self.root, *self.path)

    @property
    def subject(self) -> str:
        return SUBJECT_PREFIX + "/".join(_escape(s) for s in (*self.path, self.key))


def scope_of(namespace: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    """(scope, the labels naming it); refuses a namespace that names no scope."""
    ns = tuple(namespace)
    if ns[:1] == ("tenant",):
        return "tenant", ns[:1]
    if len(ns) >= 2 and ns[0] in _SCOPE_KINDS:
        return f"{ns[0]}:{ns[1]}", ns[:2]
    raise InvalidNamespaceError(
        f"namespace {ns} names no graph_memory scope: start it with ('user', <id>), "
        "('team', <id>) or ('tenant',)"
    )


def address(namespace: Sequence[str], key: str) -> Address:
    scope, root = scope_of(namespace)
    if not key:
        raise InvalidNamespaceError("an item key cannot be empty")
    return Address(scope, root, tuple(namespace)[len(root) :], key)


def decode_subject(scope: str, subject: str) -> Address | None:
    """The address a stored subject encodes, or None for a fact that is not a store item."""
    if not subject.startswith(SUBJECT_PREFIX):
        return None
    *path, key = (unquote(s) for s in subject[len(SUBJECT_PREFIX) :].split("/"))
    kind, _, ident = scope.partition(":")
    root = ("tenant",) if scope == "tenant" else (kind, ident)
    return Address(scope, root, tuple(path), key)


def _escape(segment: str) -> str:
    return "".join(c if c in _SAFE else _pct(c) for c in segment)


def _pct(char: str) -> str:
    return "".join(f"%{b:02x}" for b in char.encode())


def encode_object(value: Any) -> str:
    """The fact's object for a put's value; refuses (ValueError) a value the store could not
    give back: LangGraph's BaseStore takes a dict (`decode_object` reads nothing else back),
    and JSON has no NaN or infinity (Python would write them as non-standard JSON)."""
    if not isinstance(value, dict):
        raise ValueError(f"a store item's value must be a dict, not {type(value).__name__}")
    try:
        body = json.dumps(
            value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
        )
    except ValueError as e:  # a NaN or an infinity anywhere in it (or a circular reference)
        raise ValueError(f"a store item's value must be JSON: {e}") from e
    return f"{body} #{hashlib.sha256(body.encode()).hexdigest()[:16]}"


def decode_object(obj: str) -> dict[str, Any] | None:
    """The item's value, or None for an object that is no JSON object: anyone who may write
    the scope can assert a `store.item` fact by other means (assertFacts, remember), and one
    such fact must not make the scope's other items unreadable."""
    try:
        value = json.loads(obj.rsplit(" #", 1)[0])
    except (ValueError, RecursionError):  # not JSON, or nested past the decoder's depth
        return None
    return value if isinstance(value, dict) else None


def _at_path(value: Any, path: str) -> list[Any]:
    """The values a LangGraph index path names ("a.b", "list[*].text", "list[0]")."""
    found = [value]
    for part in path.split("."):
        name, _, index = part.partition("[")
        nxt: list[Any] = []
        for v in found:
            v = v.get(name) if isinstance(v, Mapping) and name else v
            if index and isinstance(v, list):
                idx = index.rstrip("]")
                nxt.extend(v if idx == "*" else v[int(idx) : int(idx) + 1 or None])
            elif v is not None and not index:
                nxt.append(v)
        found = nxt
    return found


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [] if value is None or isinstance(value, bool) else [str(value)]


def index_text(value: Mapping[str, Any], fields: Sequence[str] | None) -> str:
    """The words recall should find the item by: the index fields, or every string in it."""
    parts = [s for f in fields for v in _at_path(value, f) for s in _strings(v)] if fields else []
    return " ".join(parts if fields else _strings(value)).strip()


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and a > b,
    "$gte": lambda a, b: a is not None and a >= b,
    "$lt": lambda a, b: a is not None and a < b,
    "$lte": lambda a, b: a is not None and a <= b,
}


def matches_filter(value: Mapping[str, Any], flt: Mapping[str, Any] | None) -> bool:
    """LangGraph's search filter, as its InMemoryStore and PostgresStore read it: each key is a
    top-level key of the value ("a.b" is the key "a.b", not a path), and its filter value
    matches by containment (`_compare_values`)."""
    return all(_matches(value.get(key), want) for key, want in (flt or {}).items())


def _matches(got: Any, want: Any) -> bool:
    """A dict matches a dict holding at least its keys, recursively (JSON containment, so
    {"meta": {"lang": "en"}} finds an item whose meta has more keys); a dict with a "$" key is
    operators; a list matches a list of the same length, element by element; else equality."""
    if isinstance(want, Mapping):
        if any(isinstance(k, str) and k.startswith("$") for k in want):
            unknown = [k for k in want if k not in _OPS]
            if unknown:  # as InMemoryStore does: matching nothing would look like "none"
                raise ValueError(f"Unsupported operator {unknown[0]!r}; supported: {sorted(_OPS)}")
            try:
                return all(_OPS[op](got, arg) for op, arg in want.items())
            except TypeError:  # incomparable: no match, as a missing key
                return False
        return isinstance(got, Mapping) and all(_matches(got.get(k), v) for k, v in want.items())
    if isinstance(want, list | tuple):
        return (
            isinstance(got, list | tuple)
            and len(got) == len(want)
            and all(_matches(g, w) for g, w in zip(got, want, strict=True))
        )
    return bool(got == want)


def namespace_matches(namespace: tuple[str, ...], conditions: Sequence[Any] | None) -> bool:
    """LangGraph's MatchCondition: a prefix or suffix path, '*' matching any one label."""
    for cond in conditions or ():
        path = tuple(cond.path)
        if len(namespace) < len(path):
            return False
        pairs = (
            zip(namespace, path, strict=False)
            if cond.match_type == "prefix"
            else zip(reversed(namespace), reversed(path), strict=False)
        )
        if any(p != "*" and n != p for n, p in pairs):
            return False
    return True
