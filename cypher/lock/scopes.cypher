// params: tenant, scopes
// returns: locked, lock_stamp, server_now
// Write locks per scope: writers of different scopes of one tenant run in parallel; writers
// of one scope (its slots, its capacity) one after the other.
#include lock/_scopes
RETURN locked, lock_stamp, server_now
