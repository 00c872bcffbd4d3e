"""Procedural memory: versioned procedures proven by outcomes, and tool-call practice as
their evidence."""
