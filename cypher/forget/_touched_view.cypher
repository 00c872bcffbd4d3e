  // The version reads differently once the purge has been there (repositories/shadow.py):
  // some of its evidence is a forgotten contributor's (forget/_touched_fact), or so is its
  // successor's or its predecessor's (the chain is rewired: forget/relink, forget/rest_on).
  (
#include forget/_touched_fact(@node)
   OR CASE WHEN size(hidden) = 0 THEN false
           ELSE EXISTS { MATCH (@node)-[:SUPERSEDES]-(fg_n:Fact)
                         WHERE
#include forget/_touched_fact(fg_n)
                       } END)
