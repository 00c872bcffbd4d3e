// params:
// returns: run
// The re-embedding in progress (at most one per store), as its last committed batch left it.
MATCH (r:ReembedRun {id: 'current'})
RETURN r {.*} AS run
