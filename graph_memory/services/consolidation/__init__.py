"""Consolidation: runs that dedupe, merge entities, flag contradictions, compact episodes and
decay, each one undoable."""
