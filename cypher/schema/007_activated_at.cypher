// Facts gain activated_at (when they became served as truth). Versions written before it
// existed and ever served were active from the moment they were recorded.
MATCH (f:Fact) WHERE f.activated_at IS NULL AND f.status IN ['active', 'superseded', 'retracted', 'expired'] SET f.activated_at = coalesce(f.approved_at, f.recorded_at);
