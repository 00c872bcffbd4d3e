"""Extraction through any OpenAI-compatible chat endpoint (the ``openai`` package).

One chat completion per session with ``response_format: json_schema``; the answer is parsed
and its envelope validated (``extraction_schema.Extraction``). A transient endpoint failure
(connection, timeout, 429, 5xx) and a malformed answer are both retried with tenacity; after
the last attempt the caller gets ModelUnavailable or ModelOutputInvalid. Token use is summed
over every attempt, since every attempt was paid for.
"""

from __future__ import annotations

import json
import logging
import time
import unicodedata
from dataclasses import dataclass
from typing import Any

import openai
from openai.types.chat import ChatCompletion
from pydantic import ValidationError as PydanticError
from tenacity import (
    AsyncRetrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_random_exponential,
)

from graph_memory import metrics
from graph_memory.errors import (
    LlmNotConfigured,
    ModelAccessDenied,
    ModelOutputInvalid,
    ModelRequestRefused,
    ModelUnavailable,
    ModelUsage,
)
from graph_memory.ingestion import LINE_BREAKING, SessionInput, Turn
from graph_memory.services.ingest.extraction_schema import (
    EXTRACTOR_ID,
    RESPONSE_FORMAT,
    SCHEMA,
    SYSTEM_PROMPT,
    Extraction,
    parse_answer,
)
from graph_memory.settings import Settings

__all__ = ["ExtractionResult", "Extractor", "render_session"]

_TRANSIENT = (
    openai.APIConnectionError,  # includes APITimeoutError
    openai.RateLimitError,
    openai.InternalServerError,
)


_SCHEMA_IN_PROMPT = "\n\nAnswer with one JSON object matching this JSON schema:\n" + json.dumps(
    SCHEMA
)
log = logging.getLogger("graph_memory.ingest")


class _Malformed(Exception):
    """An answer that is not the JSON asked for; retried like a transient fault."""


@dataclass(frozen=True)
class ExtractionResult:
    extraction: Extraction
    model: str
    extractor: str
    prompt_tokens: int
    completion_tokens: int
    model_ms: float
    attempts: int


# The tenant's registry in the prompt, so the model reuses its predicate names ("lives_in",
# not a new "resides_in"); bounded, since a large registry would crowd out the conversation.
MAX_PROMPT_PREDICATES = 200


def render_session(
    session: SessionInput, turns: tuple[Turn, ...], predicates: dict[str, str] | None = None
) -> str:
    """The conversation as the model reads it: numbered turns, tool calls and their result,
    after the predicates the tenant already uses (name and cardinality)."""
    lines = [
        f"Session {_flat(session.session_id)} of user {_flat(session.user_id)}",
        f"started {session.started_at.isoformat() if session.started_at else 'unknown'}, "
        f"ended {session.ended_at.isoformat() if session.ended_at else 'unknown'}",
    ]
    if predicates:
        known = sorted(predicates.items())[:MAX_PROMPT_PREDICATES]
        lines.append(
            "Predicates already in use (prefer these names; cardinality in brackets): "
            + ", ".join(f"{n} [{c}]" for n, c in known)
        )
    lines.append("")
    for i, t in enumerate(turns):
        when = f" ({t.at.isoformat()})" if t.at else ""
        lines.append(f"[{i}] {t.role}{when}: {_indented(t.content)}")
        for c in t.tool_calls:
            verdict = "" if c.ok is None else (" -> ok" if c.ok else " -> failed")
            args = f"({_indented(c.arguments)})" if c.arguments else "()"
            lines.append(f"    tool call {_flat(c.name)}{args}{verdict}")
    return "\n".join(lines)


def _indented(text: str) -> str:
    """Continuation lines indented, whatever breaks them (\\r, \\u2028, ...: what
    str.splitlines knows): a turn or a tool's arguments cannot forge a "[n] role:" line."""
    return "\n    ".join(text.splitlines())


def _flat(text: str) -> str:
    """On one line: every control character and line or paragraph separator becomes a space
    (an id or a tool's name is shown inline; submission refuses them, this guards older
    jobs)."""
    return "".join(" " if unicodedata.category(ch) in LINE_BREAKING else ch for ch in text)


# How much of a malformed answer is sent back with the correction (a runaway answer would
# otherwise grow every retry's prompt by its whole length).
_ECHO_CHARS = 4_000


def _correction(answer: str | None, problem: str) -> list[dict[str, str]]:
    """The turn that asks the model to answer again: its answer, then what was wrong."""
    return [
        {"role": "assistant", "content": (answer or "")[:_ECHO_CHARS]},
        {
            "role": "user",
            "content": "That answer does not match the required JSON schema "
            f"({problem}). Answer again with only the JSON object, nothing else.",
        },
    ]


def _problem(e: Exception) -> str:
    """What was wrong with an answer, for the model's next attempt and the job's error: each
    schema violation with where it is (pydantic's first line only counts them)."""
    if isinstance(e, PydanticError):
        parts = [
            f"{'.'.join(str(x) for x in err['loc']) or 'answer'}: {err['msg']}"
            for err in e.errors()[:5]
        ]
        more = e.error_count() - len(parts)
        text = "; ".join(parts) + (f"; and {more} more" if more > 0 else "")
    else:
        text = str(e).splitlines()[0] if str(e) else type(e).__name__
    return text[:500]


class Extractor:
    """Calls the configured endpoint. Raises LlmNotConfigured when no model is set."""

    def __init__(self, settings: Settings, attempts: int = 3) -> None:
        if not settings.llm_configured or settings.llm_model is None:
            raise LlmNotConfigured(
                "no extraction model is configured: set GRAPH_MEMORY_LLM_MODEL (and "
                "GRAPH_MEMORY_LLM_BASE_URL / GRAPH_MEMORY_LLM_API_KEY for your endpoint)"
            )
        self.model = settings.llm_model
        self.attempts = attempts
        # Learned per process: once the endpoint refuses json_schema and then answers the same
        # request asked for a JSON object, ask for json_object from then on.
        self.schema_supported = True
        # The endpoint's own retry would stack on ours; tenacity owns retry policy.
        self.client = openai.AsyncOpenAI(
            base_url=settings.llm_base_url,
            # Local OpenAI-compatible servers often need no key, but the client insists on one.
            api_key=settings.llm_api_key or "not-needed",
            timeout=settings.llm_timeout_seconds,
            max_retries=0,
        )

    async def close(self) -> None:
        await self.client.close()

    async def _complete(self, messages: list[dict[str, str]], schema: bool) -> ChatCompletion:
        if schema:
            fmt: dict[str, Any] = RESPONSE_FORMAT
            sent = messages
        else:
            fmt = {"type": "json_object"}
            sent = [
                {"role": "system", "content": SYSTEM_PROMPT + _SCHEMA_IN_PROMPT},
                *messages[1:],
            ]
        # The typed overloads want TypedDicts; these dicts are that shape.
        response: ChatCompletion = await self.client.chat.completions.create(  # type: ignore[call-overload]
            model=self.model, messages=sent, response_format=fmt, temperature=0
        )
        return response

    async def extract(
        self,
        session: SessionInput,
        turns: tuple[Turn, ...],
        predicates: dict[str, str] | None = None,
    ) -> ExtractionResult:
        """One validated extraction; raises ModelOutputInvalid or ModelUnavailable."""
        messages: list[dict[str, str]] = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": render_session(session, turns, predicates)},
        ]
        prompt_tokens = completion_tokens = 0
        model_ms = 0.0
        attempt_no = 0
        last_problem = ""
        schema = self.schema_supported
        try:
            async for attempt in AsyncRetrying(
                retry=retry_if_exception_type((*_TRANSIENT, _Malformed)),
                stop=stop_after_attempt(self.attempts),
                wait=wait_random_exponential(multiplier=0.1, max=2.0),
                reraise=True,
            ):
                with attempt:
                    attempt_no += 1
                    began = time.perf_counter()
                    try:
                        response = await self._complete(messages, schema)
                    except (openai.AuthenticationError, openai.PermissionDeniedError) as e:
                        log.error("the extraction endpoint refused our credentials: %s", e)
                        raise ModelAccessDenied(
                            f"the extraction endpoint refused the request's credentials "
                            f"(HTTP {e.status_code}): check GRAPH_MEMORY_LLM_API_KEY and "
                            f"GRAPH_MEMORY_LLM_MODEL"
                        ) from e
                    except openai.BadRequestError as e:
                        if not schema:
                            raise ModelRequestRefused(
                                f"the extraction endpoint refused the request: {e}"
                            ) from e
                        # Perhaps a server without json_schema support: ask this session
                        # again for a JSON object, the schema in the prompt (the answer is
                        # validated all the same). Only if that is answered does the process
                        # stop asking for json_schema: a 400 about this request alone (too
                        # long, filtered) must not change how every other session is asked.
                        log.warning("endpoint refused a json_schema request (%s): json_object", e)
                        schema = False
                        last_problem = f"the endpoint refused json_schema output: {e}"[:500]
                        raise _Malformed(last_problem) from e
                    finally:
                        elapsed = time.perf_counter() - began
                        model_ms += elapsed * 1000
                        metrics.observe_llm_call(self.model, elapsed)
                    if not schema and self.schema_supported:
                        self.schema_supported = False  # answered as a JSON object: learned
                    if response.usage is not None:
                        prompt_tokens += response.usage.prompt_tokens or 0
                        completion_tokens += response.usage.completion_tokens or 0
                        metrics.count_llm_tokens(
                            self.model,
                            response.usage.prompt_tokens or 0,
                            response.usage.completion_tokens or 0,
                        )
                    content = response.choices[0].message.content if response.choices else None
                    try:
                        extraction = parse_answer(content)
                    except (ValueError, PydanticError) as e:
                        last_problem = _problem(e)
                        # The next attempt sees its answer and what was wrong with it: a
                        # model asked the same question again tends to give the same answer.
                        messages = [*messages[:2], *_correction(content, last_problem)]
                        raise _Malformed(last_problem) from e
                    return ExtractionResult(
                        extraction,
                        self.model,
                        EXTRACTOR_ID,
                        prompt_tokens,
                        completion_tokens,
                        model_ms,
                        attempt_no,
                    )
        except ModelRequestRefused as e:
            e.usage = ModelUsage(prompt_tokens, completion_tokens, model_ms, attempt_no)
            raise
        except _Malformed as e:
            err = ModelOutputInvalid(
                f"the model's answer did not match the extraction schema after {attempt_no} "
                f"attempt(s): {last_problem}"
            )
            err.usage = ModelUsage(prompt_tokens, completion_tokens, model_ms, attempt_no)
            raise err from e
        except (*_TRANSIENT, openai.APIStatusError) as e:
            err2 = ModelUnavailable(f"the extraction endpoint failed: {type(e).__name__}: {e}")
            err2.usage = ModelUsage(prompt_tokens, completion_tokens, model_ms, attempt_no)
            raise err2 from e
        raise AssertionError("unreachable")  # pragma: no cover
