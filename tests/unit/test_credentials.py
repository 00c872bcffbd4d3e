"""Which credential headers a request may carry (graph_memory/credentials.py), as the GraphQL
app and the MCP HTTP endpoint both read them."""

from __future__ import annotations

import pytest

from graph_memory.credentials import CredentialRefused, credential_of

KEY = "gm_" + "k" * 43


def headers(*pairs: tuple[str, str]) -> list[tuple[bytes, bytes]]:
    return [(k.lower().encode(), v.encode("latin-1")) for k, v in pairs]


@pytest.mark.parametrize(
    "sent",
    [
        (("Authorization", f"Bearer {KEY}"),),
        (("Authorization", f"bearer   {KEY}"),),
        (("X-Api-Key", KEY),),
        (("X-Api-Key", f" {KEY} "),),
        (("Accept", "application/json"), ("X-Api-Key", KEY)),
    ],
)
def test_bearer_and_x_api_key_give_the_same_key(sent: tuple[tuple[str, str], ...]) -> None:
    assert credential_of(headers(*sent)) == KEY


def test_no_credential_header_is_none() -> None:
    assert credential_of(headers(("Accept", "application/json"))) is None


@pytest.mark.parametrize(
    ("sent", "says"),
    [
        ((("Authorization", "Basic YWxpY2U6cHc="),), "scheme 'Basic' is not accepted"),
        ((("Authorization", KEY),), "is not 'Bearer <key>'"),
        ((("Authorization", "Bearer"),), "holds no key"),
        ((("Authorization", "Bearer   "),), "holds no key"),
        ((("Authorization", ""),), "holds no key"),
        ((("X-Api-Key", ""),), "X-Api-Key header is empty"),
        ((("X-Api-Key", KEY), ("X-Api-Key", KEY)), "exactly one"),
        ((("X-Api-Key", KEY), ("X-Api-Key", "gm_other")), "exactly one"),
        ((("Authorization", f"Bearer {KEY}"), ("X-Api-Key", "gm_other")), "exactly one"),
        ((("Authorization", f"Bearer {KEY}"), ("Authorization", "Basic eA==")), "exactly one"),
    ],
)
def test_a_credential_in_another_form_is_refused_without_echoing_it(
    sent: tuple[tuple[str, str], ...], says: str
) -> None:
    with pytest.raises(CredentialRefused) as refused:
        credential_of(headers(*sent))
    assert says in str(refused.value)
    assert refused.value.code == "UNAUTHENTICATED"
    assert KEY not in str(refused.value) and "YWxpY2U6cHc=" not in str(refused.value)
