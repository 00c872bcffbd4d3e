"""Wires the services once per process; requests share them (they hold no request state)."""

from __future__ import annotations

from dataclasses import dataclass

from graph_memory.db import Database
from graph_memory.embeddings import Embedder, build_embedder
from graph_memory.policy import DEFAULT_POLICY, TenantPolicy
from graph_memory.repositories.apikeys import ApiKeyRepository
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.compaction import CompactionRepository
from graph_memory.repositories.entities import EntityRepository
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.ingest import IngestRepository
from graph_memory.repositories.read_basis import ReadBasisRepository
from graph_memory.repositories.recall import RecallRepository
from graph_memory.repositories.resolution import ResolutionRepository
from graph_memory.repositories.session_tokens import SessionTokenRepository
from graph_memory.repositories.similarity import SimilarityRepository
from graph_memory.repositories.trust import TrustRepository
from graph_memory.services.access.keys import AuthService
from graph_memory.services.access.session_scope import ScopeGuard
from graph_memory.services.access.session_tokens import SessionTokenService
from graph_memory.services.audit.denials import DenialAudit
from graph_memory.services.audit.log import AuditLogService
from graph_memory.services.consolidation.compaction import Compactor
from graph_memory.services.consolidation.entities import EntityResolver
from graph_memory.services.consolidation.service import ConsolidationService
from graph_memory.services.episodes import EpisodeService
from graph_memory.services.facts.expiry import ExpiryService
from graph_memory.services.facts.predicates import PredicateService
from graph_memory.services.facts.reads import ReadService
from graph_memory.services.facts.writes import FactService
from graph_memory.services.forget.service import ForgetService
from graph_memory.services.ingest.memos import MemoService
from graph_memory.services.ingest.service import IngestService
from graph_memory.services.procedures.service import ProcedureService
from graph_memory.services.read_basis import ReadBasis
from graph_memory.services.recall.bookkeeping import RetrievalBookkeeper
from graph_memory.services.recall.context_pack import ContextService
from graph_memory.services.recall.service import RecallService
from graph_memory.services.remember import RememberService
from graph_memory.services.store.embedding_config import StoreBoundEmbedder
from graph_memory.services.trust.outcomes import OutcomeService
from graph_memory.services.trust.policy import PolicyStore
from graph_memory.services.trust.review import ReviewService
from graph_memory.session_share import pool_size
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
    predicates: PredicateService
    # Trust & forgetting: tenant policy store, review, expiry, audit log, excision.
    policies: PolicyStore | None = None
    review: ReviewService | None = None
    expiry: ExpiryService | None = None
    audit_log: AuditLogService | None = None
    forget: ForgetService | None = None
    # Recall, working-memory packing, procedures; retrieval counts flushed in the background.
    bookkeeper: RetrievalBookkeeper | None = None
    recall: RecallService | None = None
    context: ContextService | None = None
    procedures: ProcedureService | None = None
    # FORBIDDEN answers, audited at most once a minute per (key, field).
    denials: DenialAudit | None = None
    # Session ingestion (jobs; extraction runs in a worker) and the events/todos it writes.
    ingest: IngestService | None = None
    memos: MemoService | None = None
    # Out-of-band consolidation runs (leases, diffs, rollback).
    consolidation: ConsolidationService | None = None
    # Scoped session tokens and the check that keeps their requests inside their scopes.
    session_tokens: SessionTokenService | None = None
    scope_guard: ScopeGuard | None = None
    # What retrieved memories led to (reportOutcome), read by recall's salience.
    outcomes: OutcomeService | None = None
    # An episode and the facts it established in one call, the facts citing it.
    remember: RememberService | None = None

    async def close(self) -> None:
        if self.bookkeeper is not None:
            await self.bookkeeper.close()  # flush pending retrieval counts first
        await self.db.close()


def build_services(
    settings: Settings, db: Database | None = None, embedder: Embedder | None = None
) -> Services:
    db = db or Database.connect(
        settings.neo4j(), pool_size(settings.max_inflight), turns=settings.db_turns
    )
    # Refuses vector work while the store's vectors are another model's (a re-embedding).
    embedder = StoreBoundEmbedder(embedder or build_embedder(settings), db)
    fact_repo = FactRepository(db)
    trust_repo = TrustRepository(db)
    policies = PolicyStore(trust_repo)
    bookkeeper = RetrievalBookkeeper(RecallRepository(db))
    ingest = IngestService(IngestRepository(db), settings)
    # Episode compaction (a consolidation step) and its forget residue share one repository.
    compactor = Compactor(CompactionRepository(db, settings.neo4j()))
    # One per process: what it learns of the scopes' stamps serves every read (read_basis.py).
    basis = ReadBasis(ReadBasisRepository(db))
    recall = RecallService(RecallRepository(db), embedder, basis, bookkeeper)
    token_repo = SessionTokenRepository(db)
    scope_guard = ScopeGuard(token_repo)
    auth = AuthService(ApiKeyRepository(db), settings.auth_cache_seconds, token_repo)
    session_tokens = SessionTokenService(token_repo, auth, settings.session_token_max_seconds)
    entity_repo = EntityRepository(db)
    facts = FactService(db, embedder, policies.policy_for, settings.limits.max_slot_versions)
    episodes = EpisodeService(db, embedder, policies.policy_for)
    return Services(
        settings=settings,
        db=db,
        embedder=embedder,
        fact_repo=fact_repo,
        entity_repo=entity_repo,
        facts=facts,
        reads=ReadService(fact_repo, entity_repo, basis),
        episodes=episodes,
        remember=RememberService(episodes, facts),
        auth=auth,
        policies=policies,
        review=ReviewService(trust_repo, policies.policy_for),
        expiry=ExpiryService(trust_repo),
        audit_log=AuditLogService(AuditRepository(db), trust_repo),
        forget=ForgetService(
            db,
            policies.policy_for,
            embedder,
            residue=[ingest.forget_user, session_tokens.forget_user, compactor.forget_user],
        ),
        bookkeeper=bookkeeper,
        recall=recall,
        context=ContextService(recall),
        procedures=ProcedureService(db, embedder, basis, bookkeeper),
        predicates=PredicateService(db),
        denials=DenialAudit(AuditRepository(db)),
        ingest=ingest,
        memos=MemoService(db, embedder),
        outcomes=OutcomeService(db, policies.policy_for, scope_guard),
        consolidation=ConsolidationService(
            db,
            policies.policy_for,
            resolver=EntityResolver(
                ResolutionRepository(db), SimilarityRepository(settings.neo4j()), embedder
            ),
            compactor=compactor,
        ),
        session_tokens=session_tokens,
        scope_guard=scope_guard,
    )
