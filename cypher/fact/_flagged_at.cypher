       // Whether f awaited verification as it stood at as_of (services/facts/belief.py shows it so):
       // flagged later means not yet flagged then; verified later means still awaiting then.
       CASE
         WHEN f.flag_log_at IS NOT NULL
           THEN coalesce(last([i IN range(0, size(f.flag_log_at) - 1)
                               WHERE f.flag_log_at[i] <= $as_of | f.flag_log[i]]), false)
         WHEN f.flagged_at > $as_of THEN false
         WHEN f.verified_at > $as_of AND f.flagged_at IS NOT NULL THEN true
         ELSE coalesce(f.needs_verification, false) END
