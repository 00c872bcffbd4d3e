// Whether the entity @node may be named to a reader bound to $scopes (a session token): a
// fact about it lies in one of them. $scopes null (an API key, which reads every scope of its
// tenant) lets every entity through. Without it a token serving bob could look up the names
// that only alice's memories mention.
($scopes IS NULL OR EXISTS {
  MATCH (in_f:Fact)-[:ABOUT]->(@node)
  WHERE in_f.tenant = $tenant AND in_f.scope IN $scopes
})
