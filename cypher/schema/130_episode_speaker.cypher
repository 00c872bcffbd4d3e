// A transcript turn's speaker label ("Leo: ..."; domain.speaker_label) is stored normalised on
// the episode (`speaker`), and recall asks whether a word of its query names a speaker of the
// asked scopes (recall/_speakers): one seek on this index and an EXISTS per word. A range
// index, not a text one: it costs a write next to nothing at commit. Episodes recorded before
// are given their speaker by a backfill in Python (services/store/speaker_backfill.py), the
// same rule the write path applies.
CREATE INDEX episode_speaker IF NOT EXISTS FOR (e:Episode) ON (e.tenant, e.speaker)
