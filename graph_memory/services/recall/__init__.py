"""Recall and context: hybrid candidates, fusion and ranking, digests, salience, packing
into a token budget."""
