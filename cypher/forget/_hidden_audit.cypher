  // The event is about a fact or episode only forgotten contributors gave
  // (forget/_hidden): its content is theirs.
  CASE WHEN size(hidden) = 0 THEN false
       WHEN @node.target_type = 'fact' THEN EXISTS {
         MATCH (fg_x:Fact {id: @node.target_id}) WHERE fg_x.tenant = $tenant AND
#include forget/_hidden_fact(fg_x)
       }
       WHEN @node.target_type = 'episode' THEN EXISTS {
         MATCH (fg_x:Episode {id: @node.target_id}) WHERE fg_x.tenant = $tenant AND
#include forget/_hidden_episode(fg_x)
       }
       ELSE false END
