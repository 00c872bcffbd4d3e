"""strawberry's parse step through the request's one shared parse (graph_memory/graphql_text):
the HTTP guard and the request log have usually parsed the text already."""

from __future__ import annotations

from collections.abc import Iterator

from strawberry.extensions import SchemaExtension

from graph_memory.graphql_text import document

__all__ = ["SharedParserCache"]


class SharedParserCache(SchemaExtension):
    """strawberry's ParserCache over graphql_text.document (the same cache, the same errors:
    a text that does not parse raises graphql-core's GraphQLError for strawberry to report)."""

    def on_parse(self) -> Iterator[None]:
        ctx = self.execution_context
        max_tokens = ctx.parse_options.get("max_tokens")
        ctx.graphql_document = document(ctx.query or "", max_tokens)
        yield
