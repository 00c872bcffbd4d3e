"""Text embeddings behind one `Embedder` protocol.

``local`` (the default) runs all-MiniLM-L6-v2 int8 on this machine with no network;
``openai`` calls any OpenAI-compatible ``/embeddings`` endpoint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graph_memory.embeddings.base import Embedder, EmbedderError, InFront
from graph_memory.embeddings.local import LocalEmbedder
from graph_memory.embeddings.openai_compat import OpenAIEmbedder

if TYPE_CHECKING:
    from graph_memory.settings import Settings

__all__ = [
    "Embedder",
    "EmbedderError",
    "InFront",
    "LocalEmbedder",
    "OpenAIEmbedder",
    "build_embedder",
]

_NAMES = ("local", "openai")


def build_embedder(settings: Settings) -> Embedder:
    """The embedder `settings.embedder` names; nothing is loaded or contacted yet.

    Raises `ValueError` for an unknown name, or for an OpenAI model whose vector size is
    neither known nor configured.
    """
    name = settings.embedder.strip().lower()
    if name == "local":
        return LocalEmbedder(intra_op_threads=settings.embed_threads)
    if name == "openai":
        return OpenAIEmbedder(
            model=settings.openai_embedding_model,
            dimensions=settings.openai_embedding_dimensions,
            base_url=settings.openai_base_url,
            api_key=settings.openai_api_key,
        )
    raise ValueError(
        f"unknown embedder {settings.embedder!r} (GRAPH_MEMORY_EMBEDDER): "
        f"choose one of {', '.join(_NAMES)}"
    )
