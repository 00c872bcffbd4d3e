  // Every episode the procedure rests on is a forgotten contributor's (forget/_hidden): its
  // steps are their sessions' doing (learned from their practice, or told and proven only by
  // them), hidden from the forget's commit on as their facts and memos are; the purge then
  // deletes or demotes it (forget/user_procedures, forget/demote_procedures). A procedure no
  // episode evidences is nobody's. CASE keeps it free when no forget is running.
  // One kept in their own scope before the forget is theirs however it was proven (the purge
  // deletes it whole); the same user id talking since is a new contributor.
  CASE WHEN size(hidden) = 0 THEN false
       ELSE (EXISTS { (@node)-[:EVIDENCED_BY]->(:Episode) }
             AND NOT EXISTS { MATCH (@node)-[:EVIDENCED_BY]->(fg_e:Episode)
                              WHERE NOT coalesce(fg_e.contributor IN hidden, false) })
            OR EXISTS { MATCH (fg_own:Forgotten {tenant: @node.tenant})
                        WHERE fg_own.scope = @node.scope AND @node.created_at < fg_own.at } END
