"""What the write gate never keeps, found without asking the model: secrets, government and
financial ids, and the special categories of personal data (health, beliefs, sex life,
origin, union membership, finances).

Why: an extraction model marks each fact's ``sensitivity`` and the gate refuses ``high``,
but a model that labels "my SSN is 078-05-1120" ``low`` (an ordinary mistake, or a prompt
injection) would have it stored. These rules are the backstop, deterministic and narrow:

* ``secret_in``: a value that is a secret by its shape (a card number passing the Luhn
  check, a US SSN, an IBAN passing its mod-97 check, an API key or private key, a password
  or PIN given with its value);
* ``special_category``: a fact whose predicate names such a category (``diagnosed_with``,
  ``religion``, ``salary``, ``password``...) or whose object names a medical condition.
Both refuse inferences (the tier a model's extraction writes); an agent's explicit write
declares its own sensitivity (a user's allergy an agent must know, a door code they asked
it to keep), and is kept as marked.
* ``memo_problem``: an event or todo's text holding a secret or naming a special category
  ("User disclosed HIV diagnosis", "Reset password hunter2").
"""

from __future__ import annotations

import re

__all__ = ["memo_problem", "redact_secrets", "secret_in", "special_category"]

# Predicate words (split on "_" and "."), each naming a category the gate never keeps.
_PREDICATE_WORDS = {
    "secret": {
        "password",
        "passwd",
        "passcode",
        "passphrase",
        "pin",
        "otp",
        "cvv",
        "cvc",
        "secret",
        "apikey",
        "credentials",
        "credential",
    },
    "id number": {"ssn", "iban", "passport_number", "tax_id", "national_id", "routing_number"},
    "health": {
        "diagnosed",
        "diagnosis",
        "diagnoses",
        "disease",
        "illness",
        "medication",
        "medications",
        "prescription",
        "medical",
        "health",
        "disability",
        "pregnant",
        "pregnancy",
        "hiv",
        "symptom",
        "symptoms",
        "therapy",
        "psychiatric",
    },
    "belief": {
        "religion",
        "religious",
        "faith",
        "political",
        "politics",
        "ideology",
        "vote",
        "votes",
        "voted",
        "voting",
        "voter",
    },
    "sex life or origin": {
        "sexual",
        "sexuality",
        "orientation",
        "ethnicity",
        "ethnic",
        "racial",
        "biometric",
        "genetic",
        "criminal",
    },
    "union membership": {"union_member", "union_membership"},
    "finances": {"salary", "income", "debt", "debts", "credit_score", "net_worth", "wage"},
}
# Two-word predicates: both words present ("credit_card_number", "social_security").
_PREDICATE_PAIRS = {
    "id number": [
        ("credit", "card"),
        ("debit", "card"),
        ("card", "number"),
        ("social", "security"),
        ("bank", "account"),
        ("account", "number"),
        ("passport", "number"),
        ("driver", "license"),
        ("drivers", "license"),
        ("api", "key"),
        ("private", "key"),
        ("access", "token"),
        ("auth", "token"),
        ("security", "answer"),
    ],
    "union membership": [("trade", "union"), ("union", "member")],
    "belief": [("party", "member"), ("party", "affiliation"), ("party", "membership")],
    "sex life or origin": [("gender", "identity")],
    "finances": [("bank", "balance"), ("net", "worth"), ("credit", "score")],
}
# Conditions named as a value: "(U, has, HIV)", an event "User disclosed HIV diagnosis".
_CONDITIONS = re.compile(
    r"\b(hiv|aids|cancer|chemotherapy|diabetes|diabetic|schizophreni\w*|bipolar|epilep\w*|"
    r"dementia|alzheimer\w*|hepatitis|tuberculosis|diagnos\w*|pregnan\w*|miscarriage|"
    r"abortion|psychiatric|overdose|asthma\w*|depressi(?:on|ve)|adhd|autis\w*|ptsd|"
    r"ocd|parkinson\w*|sclerosis|hypertension|arthritis|crohn\w*|herpes|syphilis|"
    r"chlamydia|gonorrh\w*|infertil\w*|disorder|syndrome|leukemia|lymphoma|"
    r"anorexi\w*|bulimi\w*|insulin|antidepressants?)\b",
    re.IGNORECASE,
)
# A sexual orientation or gender identity named as a value: "(U, is, gay)".
_ORIENTATION = re.compile(
    r"\b(gay|lesbian|bisexual|homosexual|heterosexual|pansexual|asexual|queer|"
    r"transgender|non-binary|nonbinary)\b",
    re.IGNORECASE,
)
# Category words a predicate may run together with others ("salaryamount", "bankaccount",
# "diagnosedwith"): found inside the predicate with its separators removed. Only words long
# and specific enough not to hide inside ordinary ones ("pin" in "spinning" would).
_RUN_TOGETHER = {
    "secret": ("password", "passcode", "passphrase", "credential", "apikey", "privatekey"),
    "id number": (
        "creditcard",
        "debitcard",
        "cardnumber",
        "socialsecurity",
        "bankaccount",
        "accountnumber",
        "passportnumber",
        "driverlicense",
        "driverslicense",
        "accesstoken",
        "authtoken",
    ),
    "health": (
        "diagnos",
        "disease",
        "illness",
        "medication",
        "prescription",
        "medical",
        "disabilit",
        "pregnan",
        "symptom",
        "psychiatric",
    ),
    "belief": ("religio", "politic", "ideolog", "partymember", "partyaffiliation"),
    "sex life or origin": ("sexual", "ethnicit", "biometric", "genderidentity"),
    "union membership": ("tradeunion", "unionmember"),
    "finances": ("salary", "income", "creditscore", "networth", "bankbalance"),
}
# Words after "password is" that are no password.
_NOT_A_VALUE = (
    "a",
    "an",
    "the",
    "on",
    "in",
    "at",
    "of",
    "for",
    "to",
    "not",
    "no",
    "being",
    "still",
    "now",
    "always",
    "never",
    "too",
    "very",
    "same",
    "different",
    "written",
    "kept",
    "stored",
    "shown",
    "known",
    "there",
    "here",
    "somewhere",
    "required",
    "needed",
    "wrong",
    "correct",
    "incorrect",
    "invalid",
    "valid",
    "expiring",
    "weak",
    "strong",
    "long",
    "short",
    "case",
)
_SSN = re.compile(r"\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b")
_CARD = re.compile(r"\b\d(?:[ -]?\d){12,18}\b")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")
_KEY = re.compile(
    r"\bsk-[A-Za-z0-9_-]{20,}|\bAKIA[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{30,}|"
    r"\bxox[bpas]-[A-Za-z0-9-]{10,}|-----BEGIN [A-Z ]*PRIVATE KEY-----"
)
# A password or PIN given with its value: "password is hunter2", "PIN: 1234", "password
# hunter2" (a next word with a digit or symbol). Not "the password is on the fridge note",
# "password is changed monthly", "reset password for the user": no value follows.
_SECRET_GIVEN = re.compile(
    r"\b(?:password|passwd|passcode|passphrase|pin)\b"
    r"(?:\s*(?:is|was|=|:)\s*(?!(?:" + "|".join(_NOT_A_VALUE) + r")\b)(?!\w+ed\b)\S+"
    r"|\s+(?=\S*[\d!@#$%^&*])\S+)",
    re.IGNORECASE,
)


def secret_in(text: str) -> str | None:
    """The kind of secret ``text`` holds, or None."""
    if _SSN.search(text):
        return "a social security number"
    if any(_luhn(m.group()) for m in _CARD.finditer(text)):
        return "a payment card number"
    if any(_iban(m.group()) for m in _IBAN.finditer(text)):
        return "a bank account number (IBAN)"
    if _KEY.search(text):
        return "an API or private key"
    if _SECRET_GIVEN.search(text):
        return "a password or PIN"
    return None


def redact_secrets(text: str) -> str:
    """``text`` with every secret ``secret_in`` finds replaced by ``[redacted]``."""
    text = _SSN.sub("[redacted]", text)
    text = _CARD.sub(lambda m: "[redacted]" if _luhn(m.group()) else m.group(), text)
    text = _IBAN.sub(lambda m: "[redacted]" if _iban(m.group()) else m.group(), text)
    text = _KEY.sub("[redacted]", text)
    return _SECRET_GIVEN.sub("[redacted]", text)


def special_category(predicate: str, obj: str) -> str | None:
    """The category a fact of ``predicate`` (normalised: lower_snake, dots) with value
    ``obj`` belongs to, or None."""
    words = [w for w in re.split(r"[._]", predicate) if w]
    joined = {"_".join(words[i : i + 2]) for i in range(len(words) - 1)}
    for category, names in _PREDICATE_WORDS.items():
        if names & (set(words) | joined):
            return category
    for category, pairs in _PREDICATE_PAIRS.items():
        if any(a in words and b in words for a, b in pairs):
            return category
    bare = "".join(words)
    for category, stems in _RUN_TOGETHER.items():
        if any(stem in bare for stem in stems):
            return category
    if _CONDITIONS.search(obj):
        return "health"
    if _ORIENTATION.search(obj):
        return "sex life or origin"
    return None


def memo_problem(text: str) -> str | None:
    """Why an event or todo of this text is never kept, or None."""
    secret = secret_in(text)
    if secret is not None:
        return secret
    if _CONDITIONS.search(text):
        return "health"
    return None


def _luhn(raw: str) -> bool:
    digits = [int(c) for c in raw if c.isdigit()]
    if not 13 <= len(digits) <= 19 or len(set(digits)) == 1:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _iban(raw: str) -> bool:
    s = raw.replace(" ", "")
    if not 15 <= len(s) <= 34:
        return False
    moved = s[4:] + s[:4]
    try:
        number = int("".join(str(int(c, 36)) for c in moved))
    except ValueError:
        return False
    return number % 97 == 1
