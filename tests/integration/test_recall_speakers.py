"""Speakers of transcript turns ("Leo: Poor guy.") are names recall knows, like entities: a
question naming a speaker is judged on its other words, so the evidence ranks above that
speaker's empty turns. Known as of asOf, in the asked scopes only."""

from __future__ import annotations

from datetime import UTC, datetime

from graph_memory.client import GraphMemoryClient
from graph_memory.settings import Settings
from tests.integration.conftest import episode
from tests.integration.recall_helpers import ids
from tests.integration.speaker_helpers import EMPTY_TURNS, EVIDENCE, record, session, speakers


def test_a_question_naming_a_speaker_ranks_the_evidence_above_their_empty_turns(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    lines = [
        "Samira: How was the week at the station?",
        EMPTY_TURNS[0],
        "Samira: My advisor finally read my second chapter.",
        EMPTY_TURNS[1],
        EVIDENCE,
        *EMPTY_TURNS[2:],
        "Samira: Congratulations, that is huge news!",
    ]
    made = dict(zip(lines, record(client, session("leo", "s1", lines)), strict=True))
    assert speakers(settings, tenant)[EVIDENCE] == "leo"
    assert speakers(settings, tenant)[lines[0]] == "samira"
    res = client.recall(
        "What promotion did Leo get at the fire department?", ["user:leo"], kinds=["EPISODE"]
    )
    got = ids(res)
    assert got and got[0] == made[EVIDENCE], [i["text"] for i in res["items"]]
    empty = {made[t] for t in EMPTY_TURNS}
    assert not empty & set(got[:5]), [i["text"] for i in res["items"]]


# A turn that shares only the name with the question: served while "Dana" is a plain word,
# dropped once Dana is a known name (its other words are the question's content).
QUESTION = "what lemon cake recipe does Dana bake"
NAME_ONLY = "Met Dana at the station this morning, we waved."


def test_a_speaker_counts_from_the_turns_recorded_by_as_of(
    client: GraphMemoryClient,
) -> None:
    only = client.record_episode(**episode("dana", summary=NAME_ONLY, topics=[]))
    then = datetime.now(UTC)

    def answer(at: datetime | None) -> list[str]:
        return ids(client.recall(QUESTION, ["user:dana"], kinds=["EPISODE"], as_of=at))

    assert answer(then) == [only]
    record(client, session("dana", "s2", ["Dana: I like trains a lot, the old ones."]))
    assert answer(then) == [only]  # Dana speaks only after asOf: still a plain word then
    assert only not in answer(None)  # now Dana is a speaker: the turn shares only the name


def test_another_scopes_speaker_does_not_count(client: GraphMemoryClient) -> None:
    only = client.record_episode(**episode("dana", summary=NAME_ONLY, topics=[]))
    record(client, session("other", "s3", ["Dana: I like trains a lot, the old ones."]))
    assert ids(client.recall(QUESTION, ["user:dana"], kinds=["EPISODE"])) == [only]


def test_a_first_name_asks_about_a_speaker_labelled_by_full_name(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    """ "Maria" in the question names the "Maria Lopez:" turns' speaker."""
    empty = ["Maria Lopez: Typical.", "Maria Lopez: Ha, classic.", "Maria Lopez: Yes, it is."]
    evidence = "Maria Lopez: They made me head of the pediatric ward last week."
    lines = ["Tom Becker: Any news from the hospital?", empty[0], evidence, *empty[1:]]
    made = dict(zip(lines, record(client, session("maria", "s4", lines)), strict=True))
    assert speakers(settings, tenant)[evidence] == "maria lopez"
    res = client.recall("What promotion did Maria get at work?", ["user:maria"], kinds=["EPISODE"])
    got = ids(res)
    assert got and got[0] == made[evidence], [i["text"] for i in res["items"]]
    assert not {made[t] for t in empty} & set(got[:3]), [i["text"] for i in res["items"]]


# A speaker's turns that say nothing, more of them than a search's k nearest (overRecall 20).
FILLER = [
    "Typical.", "Ha, classic.", "Yes, it is.", "Rustic!", "Smart.", "I'll be there.",
    "That's the plan.", "It is.", "Sure thing.", "Haha, true.", "Oh no.", "Fair enough.",
    "Me too.", "Exactly.", "Not bad.", "Love it.", "Same as always.", "Good one.", "Agreed.",
    "Nope.", "So true.", "Of course.", "Maybe later.", "Wow.", "Totally.",
]  # fmt: skip


def test_a_full_name_question_is_scored_and_searched_without_the_speakers_label(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    """Asked by the full label, the question's cosine to every "Maria Lopez: ..." turn is mostly
    the label's: the vector part compares the rest of the question, and the rest is searched
    too, so the answer is found among more of her empty turns than the search's k nearest."""
    evidence = "Maria Lopez: They made me head of the pediatric ward last week."
    lines = [
        "Tom Becker: Any news from the hospital lately.",
        *(f"Maria Lopez: {t}" for t in FILLER[:12]),
        evidence,
        *(f"Maria Lopez: {t}" for t in FILLER[12:]),
    ]
    made = dict(zip(lines, record(client, session("maria", "s5", lines)), strict=True))
    assert speakers(settings, tenant)[evidence] == "maria lopez"
    res = client.recall(
        "What promotion did Maria Lopez get at work?", ["user:maria"], kinds=["EPISODE"]
    )
    got = ids(res)
    assert got and got[0] == made[evidence], [i["text"] for i in res["items"]]
