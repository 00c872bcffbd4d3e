// params: rule, of
// returns: done, after, episodes
// Where the speaker backfill of this rule version stands, store-wide (of '') or for one
// tenant (of = the tenant id); no row: not started.
MATCH (b:SpeakerBackfill {rule: $rule, of: $of})
RETURN b.done AS done, b.after AS after, b.episodes AS episodes
