"""Synthetic multi-session conversations with known evidence, for bench/quality.py.

Generated from a seed, in code: no public dataset, nothing downloaded. Two people talk over
many sessions spread across about two years; each conversation is recorded as one scope, every
turn one episode ("Nora: ..."). What makes recall hard in such memories is built in on purpose:

* evidence turns: a speaker says something about themselves, half the time in words of their
  own ("I took up the cello"), half the time in the words the later question uses ("I am
  learning to play the cello"): people do both, and each favours a different signal;
* look-alike turns: the other speaker asks something phrased like the later question ("Are you
  learning any instrument these days?"). Half the evidence is the reply right after such a
  question (the answer shares few words with the question: only the turn before it does); the
  other half is said on its own, and the look-alike is asked in another, recent session and
  left unanswered;
* old evidence, recent chatter: evidence sits mostly in the early sessions, the recent
  sessions are mostly small talk, so newness points away from the answer.

Each question names the person it is about and has exactly one evidence turn.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

__all__ = ["LAST", "Conversation", "Question", "Turn", "generate"]

LAST = datetime(2025, 6, 1, 18, 0, tzinfo=UTC)  # the last session of every conversation
SPAN_DAYS = 700

NAMES = [
    "Nora", "Theo", "Ines", "Marek", "Priya", "Oskar", "Leila", "Tomas", "Greta", "Jonah",
    "Mira", "Felix", "Amara", "Ravi", "Signe", "Lucas",
]  # fmt: skip


@dataclass(frozen=True)
class Topic:
    """One thing a person can tell about themselves, and how others ask about it."""

    key: str
    values: tuple[str, ...]
    question: str  # {name}
    evidence: tuple[str, ...]  # first person, {value}; few of the question's words
    look_alike: tuple[str, ...]  # the other speaker, phrased like the question


TOPICS = [
    Topic("instrument", ("cello", "banjo", "oboe", "ukulele", "harp", "trumpet"),
          "What instrument is {name} learning to play?",
          ("I finally took up the {value}, I practise every evening after dinner.",
           "Lessons on the {value} twice a week now, my fingers hurt but I love it.",
           "I am learning to play the {value}, it is harder than it looks.",
           "Learning the {value} is my new project, I play a little every day."),
          ("Are you learning to play any instrument these days?",
           "What instrument would you learn to play if you had the time?")),
    Topic("pet", ("greyhound", "parrot", "tortoise", "ferret", "rabbit", "beagle"),
          "What kind of pet did {name} adopt?",
          ("We brought home a {value} from the shelter last week, she is adorable.",
           "Meet the newest family member: a {value} called Pickle.",
           "We decided to adopt a {value} as our pet, she arrived on Sunday.",
           "Adopting our {value} was the best decision, what a sweet pet."),
          ("Did you ever adopt a pet like you wanted to?",
           "What kind of pet would you adopt if your landlord allowed it?")),
    Topic("trip", ("Lisbon", "Kyoto", "Reykjavik", "Marrakesh", "Vancouver", "Tallinn"),
          "Where did {name} travel for the spring holiday?",
          ("Just got back from {value}, the food alone was worth the flight.",
           "We spent ten days wandering around {value}, I took a thousand photos.",
           "Our spring holiday in {value} was amazing, I would travel back tomorrow.",
           "I travelled to {value} for the holiday, spring there is beautiful."),
          ("Where are you going to travel for the spring holiday?",
           "Did you travel anywhere nice for the holiday in spring?")),
    Topic("job", ("nurse", "architect", "baker", "translator", "electrician", "librarian"),
          "What new job did {name} start?",
          ("First week as a {value} is done, exhausting but I think I chose right.",
           "I signed the contract, I start as a {value} on Monday.",
           "I started my new job as a {value}, the team is lovely.",
           "New job, new me: working as a {value} since I started last month."),
          ("How is the search for a new job going, did you start anything?",
           "What job would you start if you could change careers?")),
    Topic("hobby", ("pottery", "rock climbing", "watercolor painting", "birdwatching",
                    "sourdough baking", "chess"),
          "What does {name} do to relax on weekends?",
          ("Honestly {value} keeps me sane, I lose track of time doing it.",
           "I joined a {value} group, Saturdays are sacred now.",
           "On weekends I relax with {value}, nothing else calms me down like it.",
           "To relax I do {value} every weekend, it is my therapy."),
          ("What do you do to relax on weekends?",
           "Do you have a way to relax on the weekends, anything you look forward to?")),
    Topic("dish", ("lasagna", "ramen", "paella", "dumplings", "curry", "moussaka"),
          "What dish did {name} learn to cook?",
          ("My {value} turned out perfect on the third try, I am so proud.",
           "Grandma taught me her {value} recipe, the secret is patience.",
           "I learned to cook {value} from a video, the dish was a hit.",
           "Finally learned how to cook a proper {value}, my favourite dish now."),
          ("Did you learn to cook any new dish recently?",
           "What dish would you want to learn to cook next?")),
    Topic("book", ("a history of salt", "a space opera", "a memoir by a chef",
                   "a book on mushrooms", "a detective novel", "a poetry collection"),
          "What book is {name} reading at the moment?",
          ("Right now it is {value}, I stay up way too late with it.",
           "I picked up {value} at the airport and cannot put it down.",
           "I am reading {value} at the moment, what a book.",
           "The book I am reading is {value}, I recommend it."),
          ("What book are you reading at the moment?",
           "Are you reading anything good at the moment, any book?")),
    Topic("sport", ("marathon", "triathlon", "half marathon", "cycling race",
                    "swimming relay", "ultra trail"),
          "What race is {name} training for?",
          ("Signed up for a {value} in October, training starts tomorrow.",
           "My coach says I will be ready for the {value} if I keep the long runs.",
           "I am training for a {value} this autumn, the race is in October.",
           "Race day for my {value} is close, training is going well."),
          ("Are you training for any race this year?",
           "What race would you train for if your knee allowed it?")),
]  # fmt: skip

CHATTER = [
    "The weather turned cold again, I need a thicker coat.",
    "Traffic on the ring road was terrible this morning.",
    "I fixed the leaking kitchen tap, very proud of myself.",
    "We ordered pizza and watched the match last night.",
    "My neighbour's kids were loud all weekend long.",
    "I finally cleaned out the garage, found my old skates.",
    "Work has been busy, three deadlines in one week.",
    "The new coffee place downtown is overrated if you ask me.",
    "I slept twelve hours yesterday, I needed that.",
    "My phone screen cracked again, third time this year.",
    "We should meet up soon, it has been too long.",
    "Did you see the storm warnings for Thursday?",
    "My brother is visiting next month with his kids.",
    "I am thinking about repainting the living room green.",
    "That sounds great, I am really happy for you.",
    "Haha, that is exactly what I would have done too.",
    "How has your week been so far, anything new?",
    "I have been so tired lately, not sure why.",
    "The train was cancelled so I worked from home.",
    "I bought new plants for the balcony, hope they survive.",
]


@dataclass(frozen=True)
class Turn:
    speaker: str
    text: str
    at: datetime
    evidence_for: int | None = None  # question index


@dataclass(frozen=True)
class Question:
    index: int
    text: str
    conversation: str
    adjacent: bool  # evidence is the reply right after a look-alike question
    evidence_age_days: float


@dataclass
class Conversation:
    id: str
    speakers: tuple[str, str]
    sessions: list[list[Turn]] = field(default_factory=list)


def _session_times(rng: random.Random, n: int) -> list[datetime]:
    offsets = sorted(rng.uniform(0, SPAN_DAYS) for _ in range(n - 1))
    return [LAST - timedelta(days=SPAN_DAYS - o) for o in offsets] + [LAST]


def generate(
    seed: int = 7, conversations: int = 6, sessions: int = 12
) -> tuple[list[Conversation], list[Question]]:
    """Conversations (turns in order, per session) and the questions with their evidence."""
    rng = random.Random(seed)
    convs: list[Conversation] = []
    questions: list[Question] = []
    for c in range(conversations):
        a, b = rng.sample(NAMES, 2)
        conv = Conversation(id=f"conv{c}", speakers=(a, b))
        times = _session_times(rng, sessions)
        # Session contents: chatter, plus planted evidence and look-alikes.
        planned: list[list[tuple[str, str, int | None]]] = [[] for _ in range(sessions)]
        for topic in TOPICS:
            for who, other in ((a, b), (b, a)):
                if rng.random() < 0.35:
                    continue  # not every person tells about every topic
                value = rng.choice(topic.values)
                q = len(questions)
                # Evidence mostly in the first two thirds: old answers, recent chatter.
                s_ev = rng.randrange(0, max(1, (2 * sessions) // 3))
                evidence = rng.choice(topic.evidence).format(value=value)
                look = rng.choice(topic.look_alike)
                adjacent = rng.random() < 0.5
                if adjacent:
                    planned[s_ev] += [(other, look, None), (who, evidence, q)]
                else:
                    planned[s_ev].append((who, evidence, q))
                    # The look-alike, asked recently and answered with nothing useful.
                    s_look = rng.randrange(max(s_ev + 1, sessions - 3), sessions)
                    planned[s_look] += [(other, look, None), (who, "Not really, no news.", None)]
                questions.append(
                    Question(
                        index=q,
                        text=topic.question.format(name=who),
                        conversation=conv.id,
                        adjacent=adjacent,
                        evidence_age_days=(LAST - times[s_ev]).total_seconds() / 86_400,
                    )
                )
        for s, plan in enumerate(planned):
            filler = rng.sample(CHATTER, rng.randint(8, 12))
            turns: list[tuple[str, str, int | None]] = [
                (conv.speakers[i % 2], t, None) for i, t in enumerate(filler)
            ]
            # Planted exchanges keep their inner order, at random places among the chatter.
            for group in _groups(plan):
                at = rng.randrange(0, len(turns) + 1)
                turns[at:at] = group
            start = times[s]
            conv.sessions.append(
                [
                    Turn(who, f"{who}: {text}", start + timedelta(minutes=i), ev)
                    for i, (who, text, ev) in enumerate(turns)
                ]
            )
        convs.append(conv)
    return convs, questions


def _groups(plan: list[tuple[str, str, int | None]]) -> list[list[tuple[str, str, int | None]]]:
    """A look-alike question and the reply after it stay together; other turns stand alone."""
    out: list[list[tuple[str, str, int | None]]] = []
    i = 0
    while i < len(plan):
        if plan[i][2] is None and i + 1 < len(plan) and not plan[i][1].startswith("Not really"):
            out.append(plan[i : i + 2])
            i += 2
        else:
            out.append(plan[i : i + 1])
            i += 1
    return out
