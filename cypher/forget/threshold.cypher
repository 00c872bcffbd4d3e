// params: tenant
// returns: promote_sessions
// The threshold a purge batch judges promotions by (forget/_threshold); null without markers.
#include forget/_threshold
RETURN promote_sessions
