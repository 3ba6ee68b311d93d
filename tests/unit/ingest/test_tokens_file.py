"""A token names one caller: the tokens file and --auth-token are refused in one line when a token would
name two (the later line's tenant won silently, and an operator token equal to a tenant's made the operator
that tenant)."""

import pytest

from harborlight.ingest.auth import Authenticator


def test_a_token_listed_twice_is_refused_with_both_lines(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text("# token tenant\ntok-a acme\ntok-b globex\ntok-a globex\n")
    with pytest.raises(ValueError) as refused:
        Authenticator.from_settings(None, tokens)
    assert str(refused.value) == f"{tokens}:4: this token is already on line 2: a token names one tenant"


def test_an_operator_token_that_is_a_tenants_token_is_refused(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text("tok-a acme\ntok-b globex\n")
    with pytest.raises(ValueError) as refused:
        Authenticator.from_settings("tok-b", tokens)
    assert "--auth-token is also the token of tenant 'globex'" in str(refused.value)


def test_distinct_tokens_name_their_callers(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text("tok-a acme\ntok-b globex\n")
    auth = Authenticator.from_settings("tok-op", tokens)
    assert [auth.authenticate(f"Bearer {t}").tenant for t in ("tok-a", "tok-b", "tok-op")] == ["acme", "globex", None]
