// params: tenant, run_id
// returns: released
// A finished run (applied, dry, failed) hands its scopes back.
MATCH (l:ConsolidationLease {tenant: $tenant, run_id: $run_id})
DELETE l
RETURN count(*) AS released
