// The promotion threshold a forget in flight judges promotions by (`promote_sessions`): the
// lowest its markers took from the tenant's policy when marked (forget.mark), so that the
// in-flight view (forget.shadow_slots) and the purge (forget.threshold) agree whatever the
// policy says meanwhile.
CALL () {
  OPTIONAL MATCH (fg:Forgotten {tenant: $tenant})
  WHERE fg.contributor IS NOT NULL  // seeks the (tenant, contributor) index
  RETURN min(fg.promote_sessions) AS promote_sessions
}
