  // The episode is a forgotten contributor's (forget/_hidden), or a digest one of whose
  // members' contributors is forgotten (its text is theirs too).
  (coalesce(@node.contributor IN hidden, false)
   OR any(fg_c IN coalesce(@node.contributors, []) WHERE fg_c IN hidden))
