"""GraphQL surface: resolvers translate to service calls and back, nothing more."""
