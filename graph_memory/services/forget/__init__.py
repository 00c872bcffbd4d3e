"""Forgetting a contributor: the call that makes them unanswerable at once, the purge
batches, and the worker that resumes them."""
