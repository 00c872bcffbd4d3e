  // Some of the version's evidence is a forgotten contributor's (forget/_hidden): the purge
  // will delete it (forget/_hidden_fact) or rewrite when it was said and believed
  // (forget/rest_on), so until the purge has been there its slot's stored
  // timeline is not what the slot will hold; reads resolve that slot without them
  // (forget.shadow_slots, graph_memory/temporal/withdrawal.py). CASE keeps it free when no
  // forget is running.
  CASE WHEN size(hidden) = 0 THEN false
       ELSE EXISTS { MATCH (@node)-[:DERIVED_FROM]->(fg_w:Episode)
                     WHERE coalesce(fg_w.contributor IN hidden, false) } END
