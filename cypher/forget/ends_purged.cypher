// params: tenant, contributors
// returns: markers
// The contributors' versions with an end are purged (forget/_next_facts): listings stop
// looking for the slots they cut (forget/touched_ends).
MATCH (fg:Forgotten {tenant: $tenant})
WHERE fg.contributor IN $contributors
SET fg.ends_left = false
RETURN count(fg) AS markers
