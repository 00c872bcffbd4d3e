       // Whether f awaited verification as it stood at as_of: its change log's last flag or
       // verification by then (the fold of graph_memory/temporal/lifecycle.life_at), here so
       // that a page is cut after filtering.
       coalesce(last([i IN range(0, size(coalesce(f.changes, [])) - 1)
                      WHERE f.changes_at[i] <= $as_of AND f.changes[i] IN ['flagged', 'verified']
                      | f.changes[i] = 'flagged']), false)
