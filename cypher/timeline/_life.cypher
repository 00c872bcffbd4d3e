    // What graph_memory/temporal reads of a version (repositories/timeline._life): the
    // fields of its life inside a version map. Times as ISO text: the driver decodes a
    // temporal value ~40x slower than Python parses text.
    id: @node.id, version: @node.version, object_key: @node.object_key,
    many: coalesce(@node.cardinality, 'one') = 'many',
    stated: coalesce(@node.valid_from_stated, false),
    valid_from: toString(@node.valid_from), valid_to: toString(@node.valid_to),
    recorded_at: toString(@node.recorded_at), activated_at: toString(@node.activated_at),
    entered_at: toString(@node.entered_at),
    retracted_at: toString(@node.retracted_at), rejected_at: toString(@node.rejected_at),
    told_log_at: [t IN coalesce(@node.told_log_at, []) | toString(t)],
    told_log: [t IN coalesce(@node.told_log, []) | toString(t)]
