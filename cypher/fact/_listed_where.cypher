  // Whether a listing serves version `f`: not past its TTL unless asked, flagged as asked
  // (as it stood at as_of, fact/_flagged_at).
  (($include_expired OR f.expires_at IS NULL OR f.expires_at > $as_of)
   AND ($needs_verification IS NULL OR $needs_verification =
#include fact/_flagged_at
   ))
