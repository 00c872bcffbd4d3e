"""Session ingestion: the job queue, LLM extraction, writing what qualifies, events and todos."""
