  // All of the fact's (or memo's) evidence is forgotten contributors' episodes: it is theirs
  // alone (forget/_hidden). A fact with no evidence is nobody's. CASE keeps it free when no
  // forget is running.
  CASE WHEN size(hidden) = 0 THEN false
       ELSE EXISTS { (@node)-[:DERIVED_FROM]->(:Episode) }
            AND NOT EXISTS { MATCH (@node)-[:DERIVED_FROM]->(fg_e:Episode)
                             WHERE NOT coalesce(fg_e.contributor IN hidden, false) } END
