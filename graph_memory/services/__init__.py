"""Services: the rules between resolvers and repositories, grouped by capability.

``facts`` (writes and reads on two time axes), ``recall`` (recall and context),
``trust`` (policy, review, outcomes), ``forget``, ``audit``, ``access`` (keys and session
tokens), ``consolidation``, ``ingest`` (sessions and extraction), ``procedures``,
``episodes`` and ``store`` (whole-store operations). The time rule itself lives in
``graph_memory.temporal``; services never run Cypher (repositories do) and never import
GraphQL or the driver (``import-linter`` contracts in ``pyproject.toml``)."""
