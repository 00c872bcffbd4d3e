"""Repositories: the only code that runs Cypher, always by catalog name, always tenant-scoped."""
