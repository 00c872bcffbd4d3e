"""A local OpenAI-compatible endpoint for the tests: the real HTTP protocol, as the `openai`
client sends it, with scripted answers.

* ``POST /v1/chat/completions`` (ingestion): a test scripts what the "model" answers for a
  session id (the extractor names the session in its prompt).
* ``POST /v1/embeddings`` (the OpenAI embedder): the text ``t<n>`` is answered with the
  vector ``[1, n, 0, ...]`` (so a test can decode which text a vector belongs to), any other
  text with a vector derived from its bytes; failures are scripted one per request.

Every request received is kept, so a test can check what was sent.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

__all__ = ["Answer", "FakeLLM", "extraction", "running"]

_SESSION = re.compile(r"^Session (\S+) of user", re.MULTILINE)


@dataclass
class Answer:
    content: str | None = None  # the assistant message; None answers `nothing qualifies`
    delay: float = 0.0  # seconds before answering (a slow model, or one a worker dies in)
    status: int = 200  # non-200: an endpoint failure
    prompt_tokens: int = 100
    completion_tokens: int = 20


def extraction(
    *,
    summary: str | None = None,
    outcome: str = "success",
    facts: list[dict[str, Any]] | None = None,
    events: list[dict[str, Any]] | None = None,
    todos: list[dict[str, Any]] | None = None,
    intent: str | None = None,
    topics: list[str] | None = None,
) -> str:
    """A well-formed model answer; no summary means the model found nothing worth keeping."""
    episode = (
        None
        if summary is None
        else {"summary": summary, "outcome": outcome, "topics": topics or [], "key_entities": []}
    )
    full_facts = [
        {
            "kind": "preference",
            "cardinality": "many",
            "valid_from": None,
            "valid_to": None,
            **f,
        }
        for f in facts or []
    ]
    return json.dumps(
        {
            "episode": episode,
            "facts": full_facts,
            "events": [{"at": None, **e} for e in events or []],
            "todos": [{"due": None, **t} for t in todos or []],
            "procedure": {"intent": intent} if intent else None,
        }
    )


@dataclass
class FakeLLM:
    url: str = ""
    scripts: dict[str, list[Answer]] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # /v1/embeddings: vector size, requests received, failures answered one per request
    # (then success), and whether `data` comes back in reverse order (the index is the rule).
    embedding_dims: int = 4
    embedding_requests: list[dict[str, Any]] = field(default_factory=list)
    embedding_auth: list[str] = field(default_factory=list)  # each request's Authorization
    embedding_failures: list[Answer] = field(default_factory=list)
    embedding_reverse: bool = False

    def reset_embeddings(self, dims: int = 4) -> None:
        with self.lock:
            self.embedding_dims = dims
            self.embedding_requests.clear()
            self.embedding_auth.clear()
            self.embedding_failures.clear()
            self.embedding_reverse = False

    def fail_embeddings(self, *failures: Answer | int) -> None:
        """The next requests fail in this order: a status code, or an Answer (with a delay
        longer than the client's timeout, a transport failure)."""
        with self.lock:
            self.embedding_failures.extend(
                f if isinstance(f, Answer) else Answer(status=f) for f in failures
            )

    def embedding_vector(self, text: str) -> list[float]:
        if text.startswith("t") and text[1:].isdigit():
            return [1.0, float(text[1:])] + [0.0] * (self.embedding_dims - 2)
        digest = hashlib.sha256(text.encode()).digest()
        return [1.0 + b / 255 for b in digest[: self.embedding_dims]]

    def script(self, session_id: str, *answers: Answer | str) -> None:
        with self.lock:
            self.scripts[session_id] = [
                a if isinstance(a, Answer) else Answer(content=a) for a in answers
            ]

    def requests_for(self, session_id: str) -> list[dict[str, Any]]:
        with self.lock:
            return [r for r in self.requests if _session_of(r) == session_id]

    def wait_for_request(self, session_id: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.requests_for(session_id):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no request for session {session_id}")
            time.sleep(0.05)

    def _next(self, session_id: str | None) -> Answer:
        with self.lock:
            queue = self.scripts.get(session_id or "")
            if not queue:
                return Answer(content=extraction())
            # The last answer repeats: "always malformed" is one scripted answer.
            return queue.pop(0) if len(queue) > 1 else queue[0]

    async def completions(self, request: Request) -> Response:
        body = await request.json()
        with self.lock:
            self.requests.append(body)
        answer = self._next(_session_of(body))
        if answer.delay:
            await asyncio.sleep(answer.delay)
        if answer.status != 200:
            return JSONResponse(
                {"error": {"message": "scripted failure", "type": "server_error"}},
                status_code=answer.status,
            )
        return JSONResponse(
            {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "scripted"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": answer.content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": answer.prompt_tokens,
                    "completion_tokens": answer.completion_tokens,
                    "total_tokens": answer.prompt_tokens + answer.completion_tokens,
                },
            }
        )

    async def embeddings(self, request: Request) -> Response:
        body = await request.json()
        with self.lock:
            self.embedding_requests.append(body)
            self.embedding_auth.append(request.headers.get("authorization", ""))
            failure = self.embedding_failures.pop(0) if self.embedding_failures else None
            reverse = self.embedding_reverse
        if failure is not None and failure.delay:
            await asyncio.sleep(failure.delay)  # the client times out before this ends
        if failure is not None and failure.status != 200:
            return JSONResponse(
                {"error": {"message": f"scripted status {failure.status}", "type": "error"}},
                status_code=failure.status,
            )
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [
            {"object": "embedding", "index": i, "embedding": self.embedding_vector(t)}
            for i, t in enumerate(texts)
        ]
        if reverse:
            data.reverse()
        return JSONResponse(
            {
                "object": "list",
                "model": body["model"],
                "data": data,
                "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
            }
        )


def _session_of(body: dict[str, Any]) -> str | None:
    for message in body.get("messages") or []:
        m = _SESSION.search(str(message.get("content") or ""))
        if m:
            return m.group(1)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def running() -> Iterator[FakeLLM]:
    """Serve a FakeLLM on a free loopback port for the duration of the generator."""
    fake = FakeLLM()
    app = Starlette(
        routes=[
            Route("/v1/chat/completions", fake.completions, methods=["POST"]),
            Route("/v1/embeddings", fake.embeddings, methods=["POST"]),
        ]
    )
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("fake LLM server did not start")
        time.sleep(0.02)
    fake.url = f"http://127.0.0.1:{port}/v1"
    try:
        yield fake
    finally:
        server.should_exit = True
        thread.join(timeout=10)
