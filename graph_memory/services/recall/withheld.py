"""Facts a forgotten contributor worded, while their forget's purge has not reworded them.

Such a fact is others' too (forget/_their_text), but its indexed text and embedding are the
forgotten contributor's words until the purge's batch rewords it (forget/reword): scored on
them, a search for their words would rank it first and so point at what they said. It is
scored instead as the purge will leave it: on the triple's neutral wording and that
wording's embedding, with no keyword part (the full-text hit was on their words).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graph_memory.db import Record
from graph_memory.domain import default_text
from graph_memory.embeddings import Embedder

__all__ = ["rescore_withheld"]


def _neutral(r: Record) -> str:
    return default_text(
        str(r["subject_name"] or r["subject"]), str(r["predicate"]), str(r["object"])
    )


def _index_cosine(a: np.ndarray, b: Sequence[float] | None) -> float | None:
    """Cosine in the vector index's form, (1 + cos) / 2, as the candidate rows carry it."""
    if b is None:
        return None
    q = np.asarray(b, dtype=np.float64)
    denom = float(np.linalg.norm(a) * np.linalg.norm(q)) or 1.0
    return (1.0 + float(a @ q) / denom) / 2.0


async def rescore_withheld(
    rows: list[Record],
    embedder: Embedder,
    vector: Sequence[float],
    content_vector: Sequence[float] | None,
) -> list[Record]:
    """``rows`` (recall.facts candidates) with each withheld fact worded, embedded and scored
    as the purge will leave it; the others as they are. A withheld fact already in the neutral
    wording needs nothing (the purge leaves it as it is)."""
    redo = [i for i, r in enumerate(rows) if r.get("withheld") and r["text"] != _neutral(r)]
    if not redo:
        return rows
    texts = [_neutral(rows[i]) for i in redo]
    vectors = await embedder.embed(texts)
    out = list(rows)
    for i, text, v in zip(redo, texts, vectors, strict=True):
        emb = np.asarray(v, dtype=np.float64)
        out[i] = {
            **rows[i],
            "text": text,
            "similarity": _index_cosine(emb, vector),
            "content": _index_cosine(emb, content_vector),
            "keyword": None,
        }
    return out
