// Whether the entity @node may be named to a reader bound to $scopes (a session token): a
// fact in one of them is about it or names it as its object. $scopes null (an API key, which
// reads every scope of its tenant) lets every entity through. Without it a token serving bob
// could look up the names that only alice's memories mention. The subject side is a seek per
// scope (fact_slot's leading tenant, scope, subject): the entity's key is its facts' subject.
($scopes IS NULL OR EXISTS {
  UNWIND $scopes AS in_sc
  MATCH (in_f:Fact {tenant: $tenant, scope: in_sc, subject: @node.key})
  RETURN in_f
} OR EXISTS {
  MATCH (in_o:Fact)-[:OBJECT]->(@node)
  WHERE in_o.tenant = $tenant AND in_o.scope IN $scopes
})
