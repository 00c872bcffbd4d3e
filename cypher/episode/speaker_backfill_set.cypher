// params: rule, of, done, after, episodes
// returns: rule
// Records the speaker backfill's progress in the batch's own transaction, so a restart
// resumes after the last episode it wrote. `of` rather than `tenant`: the marker is the
// store's bookkeeping, not part of a tenant's memory (its export, its forget).
MERGE (b:SpeakerBackfill {rule: $rule, of: $of})
SET b.done = $done, b.after = $after, b.episodes = $episodes, b.updated_at = datetime(),
    b.caption = 'speaker backfill ' + toString($rule)
RETURN b.rule AS rule
