  // The episode is a forgotten contributor's (forget/_hidden).
  coalesce(@node.contributor IN hidden, false)
