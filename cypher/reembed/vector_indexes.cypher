// params:
// returns: name, dimensions
// The store's vector indexes and the vector size each was created for.
SHOW VECTOR INDEXES YIELD name, options
RETURN name, options.indexConfig['vector.dimensions'] AS dimensions
