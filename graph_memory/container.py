"""Wires the services once per process; requests share them (they hold no request state)."""

from __future__ import annotations

from dataclasses import dataclass

from graph_memory.db import Database
from graph_memory.embeddings import Embedder, build_embedder
from graph_memory.policy import DEFAULT_POLICY, TenantPolicy
from graph_memory.repositories.apikeys import ApiKeyRepository
from graph_memory.repositories.entities import EntityRepository
from graph_memory.repositories.facts import FactRepository
from graph_memory.services.auth import AuthService
from graph_memory.services.episodes import EpisodeService
from graph_memory.services.facts import FactService
from graph_memory.services.reads import ReadService
from graph_memory.settings import Settings

__all__ = ["Services", "build_services"]


async def default_policy(tenant: str) -> TenantPolicy:
    del tenant
    return DEFAULT_POLICY


@dataclass
class Services:
    settings: Settings
    db: Database
    embedder: Embedder
    fact_repo: FactRepository
    entity_repo: EntityRepository
    facts: FactService
    reads: ReadService
    episodes: EpisodeService
    auth: AuthService

    async def close(self) -> None:
        await self.db.close()


def build_services(settings: Settings, db: Database | None = None,
                   embedder: Embedder | None = None) -> Services:
    db = db or Database.connect(settings.neo4j())
    embedder = embedder or build_embedder(settings)
    fact_repo = FactRepository(db)
    return Services(
        settings=settings,
        db=db,
        embedder=embedder,
        fact_repo=fact_repo,
        entity_repo=EntityRepository(db),
        facts=FactService(db, embedder, default_policy),
        reads=ReadService(fact_repo),
        episodes=EpisodeService(db, embedder, default_policy),
        auth=AuthService(ApiKeyRepository(db)),
    )
