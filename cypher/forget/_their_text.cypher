  // The version's own text, or null while a forget runs whose contributor first wrote it (cited
  // when the version was recorded: forget/batch_facts' `wrote`): the free text is theirs, the
  // triple others also support. The read serves the triple's neutral wording instead
  // (versions.FactVersion.from_row, domain.default_text), which the purge then stores
  // (forget/reword). CASE keeps it free when no forget is running.
  CASE WHEN size(hidden) = 0 THEN @node.text
       WHEN EXISTS { MATCH (@node)-[fg_wd:DERIVED_FROM]->(fg_we:Episode)
                     WHERE fg_wd.at <= @node.recorded_at
                       AND coalesce(fg_we.contributor IN hidden, false) } THEN null
       ELSE @node.text END
