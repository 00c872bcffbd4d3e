"""The one credential an HTTP request carries, read the same way by the GraphQL app
(graph_memory/http_guard.py) and the MCP HTTP endpoint (integrations/mcp_http_guard.py).

Accepted: ``Authorization: Bearer <key>`` or ``X-Api-Key: <key>``, exactly one of them.
Anything else that claims to be a credential is refused rather than read as "none": an
endpoint with a fallback (the MCP server bound to a key) would otherwise serve the request as
someone else. Refused: two credential headers (even equal ones: which one counts would be
the server's guess), an ``Authorization`` header in another scheme (``Basic``) or without
one (a bare key), an empty key. Imports nothing of the server, so the MCP extra can use it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["CredentialRefused", "credential_of"]

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9._~+/-]{0,31}")
_HOW = "send the key as 'Authorization: Bearer <key>' or 'X-Api-Key: <key>'"


class CredentialRefused(Exception):
    """The request's credential headers are not one accepted credential (HTTP 401,
    ``UNAUTHENTICATED``). The message never repeats a header's value beyond its scheme."""

    code = "UNAUTHENTICATED"


def credential_of(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The key in ``headers`` (raw ASGI pairs, names lower-case), None when there is no
    credential header at all; raises CredentialRefused for one the service does not accept."""
    auth: list[bytes] = []
    keys: list[bytes] = []
    for name, value in headers:
        if name == b"authorization":
            auth.append(value)
        elif name == b"x-api-key":
            keys.append(value)
    if len(auth) + len(keys) > 1:
        raise CredentialRefused(
            "send exactly one credential: one Authorization header or one X-Api-Key"
        )
    if keys:
        key = keys[0].decode("latin-1").strip()
        if not key:
            raise CredentialRefused(f"the X-Api-Key header is empty: {_HOW}")
        return key
    if not auth:
        return None
    scheme, _, rest = auth[0].decode("latin-1").strip().partition(" ")
    if scheme.lower() == "bearer" and rest.strip():
        return rest.strip()
    if scheme.lower() == "bearer" or not scheme:
        raise CredentialRefused(f"the Authorization header holds no key: {_HOW}")
    if rest and _SCHEME.fullmatch(scheme):
        raise CredentialRefused(f"the Authorization scheme {scheme!r} is not accepted: {_HOW}")
    # No scheme (a bare key, most likely): say so without echoing it.
    raise CredentialRefused(f"the Authorization header is not 'Bearer <key>': {_HOW}")
