// The tenant's forgotten contributors whose purge is still running (services/forget/service.py): one
// seek on the forgotten_contributor index, almost always empty. A read that can return what a
// contributor gave starts with it and hides through forget/_hidden_* (from the forget's
// commit on, at every asOf: what only they gave is not answerable while the purge runs).
CALL () {
  OPTIONAL MATCH (fg:Forgotten {tenant: $tenant})
  RETURN collect(fg.contributor) AS hidden
}
