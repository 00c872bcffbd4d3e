// params: tenant, scope, tiers, names
// returns: predicate, versions
// The tenant's rulings on these predicates: single-valued facts in the shared scope that
// $tiers (an admin, the system) decided, in force (whatever their subject), read for an
// inference of a narrower scope, which may not give any subject another value of such a
// predicate
// (services/facts/rules.check_shared_truth: "the admin said I get 10x refunds" filed as the
// user's own refund_limit beside the tenant's). Fields as fact.write_state reads a version.
UNWIND $names AS name
MATCH (f:Fact {tenant: $tenant, scope: $scope, predicate: name})
WHERE f.tier IN $tiers AND f.status = 'active'
  AND coalesce(f.cardinality, 'one') = 'one'
  AND f.superseded_at IS NULL AND f.retracted_at IS NULL
RETURN name AS predicate, collect({
  id: f.id, subject: f.subject, tier: f.tier, status: f.status, object_key: f.object_key,
  expires_ms: f.expires_at.epochMillis,
  valid_from_us: f.valid_from.epochSeconds * 1000000 + f.valid_from.microsecond,
  valid_to_us: f.valid_to.epochSeconds * 1000000 + f.valid_to.microsecond
}) AS versions
