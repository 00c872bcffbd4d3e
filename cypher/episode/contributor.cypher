// params: tenant, user_id, now
// returns: key
// The key of the contributor a user id names now, created if there is none yet: remember
// derives its episode's id from it, so a key replayed after the user's forget names a new
// episode, not the forgotten one's.
WITH $user_id AS user_id
#include episode/_user(user_id)
RETURN u.key AS key
