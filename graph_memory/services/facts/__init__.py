"""Semantic memory: the fact write path (gate, per-item rules, supersession in valid time,
effects, group commit) and its reads on two time axes."""
