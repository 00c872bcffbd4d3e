// params: tenant, contributors
// returns: ends_left
// Whether a purge of these contributors is still in its ends phase (forget/_next_facts): a
// marker from before the phase existed counts as in it.
OPTIONAL MATCH (fg:Forgotten {tenant: $tenant})
WHERE fg.contributor IN $contributors AND coalesce(fg.ends_left, true)
RETURN count(fg) > 0 AS ends_left
