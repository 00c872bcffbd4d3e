"""Whole-store operations: the embedder on record, re-embedding, export/import, and the
timeline backfill."""
