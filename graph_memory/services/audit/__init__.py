"""The audit trail: writing events, reading the log and its alerts, rate-limited denials."""
