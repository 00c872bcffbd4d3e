  // All of the procedure's evidence is forgotten contributors' episodes (forget/_hidden).
  CASE WHEN size(hidden) = 0 THEN false
       ELSE EXISTS { (@node)-[:EVIDENCED_BY]->(:Episode) }
            AND NOT EXISTS { MATCH (@node)-[:EVIDENCED_BY]->(fg_e:Episode)
                             WHERE NOT coalesce(fg_e.contributor IN hidden, false) } END
