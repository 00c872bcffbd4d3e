       // A version as the fact listings serve it (fact/_listed, fact/listed_ids).
       @node {.*, embedding: null, text:
#include forget/_their_text(@node)
          ,
          told_log_at: null, told_log: null,
#include fact/_state_times(@node)
          }
