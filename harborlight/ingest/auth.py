"""Bearer tokens: who is calling, and (with tenants on) which tenant's data they may write and read.

`--auth-token T` admits one token without tenants; `--tokens-file F` maps tokens to tenants, one
`token tenant` pair per line (# comments allowed). With neither, harborlight is open. A token names one caller:
a tokens file that lists a token twice, or an --auth-token that is also a tenant's token, is refused in one
line (it would make one caller another: the later line's tenant, or the operator a tenant).
"""

import hmac
import re
from dataclasses import dataclass
from pathlib import Path

_TENANT_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")


class Unauthorized(Exception):
    """No token, or not one this server knows."""


@dataclass(frozen=True)
class Caller:
    tenant: str | None  # None when tenants are off


class Authenticator:
    def __init__(self, tokens: dict[str, str | None] | None = None) -> None:
        self._tokens = tokens or {}

    @classmethod
    def from_settings(cls, auth_token: str | None, tokens_file: Path | None) -> "Authenticator":
        tokens: dict[str, str | None] = {}
        if auth_token:
            tokens[auth_token] = None
        if tokens_file:
            listed = read_tokens_file(tokens_file)
            if auth_token and auth_token in listed:
                raise ValueError(
                    f"--auth-token is also the token of tenant {listed[auth_token]!r} in {tokens_file}: "
                    "give the operator a token of its own"
                )
            tokens.update(listed)
        return cls(tokens)

    @property
    def enabled(self) -> bool:
        return bool(self._tokens)

    @property
    def tenants_on(self) -> bool:
        return any(t is not None for t in self._tokens.values())

    def authenticate(self, authorization: str | None) -> Caller:
        """`authorization` is the Authorization header (or gRPC metadata) value, if any."""
        if not self.enabled:
            return Caller(tenant=None)
        if not authorization:
            raise Unauthorized("missing bearer token: send 'Authorization: Bearer <token>'")
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("Authorization must be 'Bearer <token>'")
        token = token.strip()
        for known, tenant in self._tokens.items():
            if hmac.compare_digest(known.encode(), token.encode()):
                return Caller(tenant=tenant)
        raise Unauthorized("unknown bearer token")


def read_tokens_file(path: Path) -> dict[str, str]:
    tokens: dict[str, str] = {}
    lines_of: dict[str, int] = {}
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise ValueError(f"cannot read tokens file {path}: {exc.strerror}") from None
    for number, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"{path}:{number}: expected 'token tenant', got {len(parts)} field(s)")
        if not _TENANT_NAME.fullmatch(parts[1]):
            raise ValueError(f"{path}:{number}: a tenant name is letters, digits, '.', '_' or '-'")
        if parts[0] in lines_of:
            raise ValueError(
                f"{path}:{number}: this token is already on line {lines_of[parts[0]]}: a token names one tenant"
            )
        tokens[parts[0]], lines_of[parts[0]] = parts[1], number
    if not tokens:
        raise ValueError(f"tokens file {path} has no 'token tenant' lines")
    return tokens
