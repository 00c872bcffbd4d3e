// Excision keeps an audit event's who/when/which action and drops what was said (its
// content snapshots and free-text reason), marking when: the one redaction rule.
SET @node.before = null, @node.after = null, @node.reason = null, @node.redacted_at = $now
