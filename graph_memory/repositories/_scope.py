from __future__ import annotations

from graph_memory.errors import ScopeMissing

__all__ = ["require_scopes", "require_tenant"]


def require_tenant(tenant: str | None) -> str:
    """Every repository call is tenant-scoped; a missing tenant is a bug, never a wide read."""
    if not tenant:
        raise ScopeMissing("repository called without a tenant")
    return tenant


def require_scopes(scopes: list[str] | None) -> list[str]:
    if not scopes:
        raise ScopeMissing("repository read called without a user/team/tenant scope")
    return scopes
