"""Trust: per-tenant policy and capacity, promotion review, reported outcomes."""
