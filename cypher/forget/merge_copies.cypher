// params: tenant, ids, doomed
// returns: ids
// Surviving copies that an entity merge made of versions now excised (others corroborated the
// copy since): they stop naming them (merged_from), and their audit trail is scrubbed with
// the other survivors' (services/forget/trail.py), as if the excised version never was.
// $ids: the excised versions a merge copied (forget.batch_facts' `merged`); $doomed: every
// version the batch excises.
UNWIND $ids AS id
MATCH (o:Fact {id: id})
WHERE o.tenant = $tenant AND o.merged_into IS NOT NULL
MATCH (c:Fact {id: o.merged_into})
WHERE c.tenant = $tenant AND c.merged_from = o.id AND NOT c.id IN $doomed
SET c.merged_from = null
RETURN collect(c.id) AS ids
