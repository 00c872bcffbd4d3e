"""Who may call: API keys, scoped session tokens and the rule they obey, failed-key throttling."""
