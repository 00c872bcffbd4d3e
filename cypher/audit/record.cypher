// params: tenant, events
// returns: recorded
// One node per auditable change. `before`/`after` are JSON snapshots; excision of a
// contributor later blanks them (content) but keeps who/when/what.
UNWIND $events AS ev
#include audit/_create(ev)
// A count, not the ids: decoding a row per event costs the caller more than the write.
RETURN count(a) AS recorded
