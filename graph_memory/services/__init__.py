"""Services: the rules (time defaults, tiers, gate, promotion) between resolvers and
repositories."""
