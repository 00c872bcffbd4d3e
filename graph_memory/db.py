"""The only place that talks to the driver: managed transactions with retries.

Retries cover transient faults only (a leader switch, a dropped connection, a deadlock);
a client error such as a syntax or constraint violation is raised at once, since replaying
it cannot succeed. Callers name a query from the catalog; they never pass Cypher text.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any, TypeVar

from neo4j import (
    READ_ACCESS,
    AsyncDriver,
    AsyncGraphDatabase,
    AsyncManagedTransaction,
    AsyncResult,
    RoutingControl,
)
from neo4j._data import RecordExporter
from neo4j.exceptions import (
    ConstraintError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)
from tenacity import (
    AsyncRetrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_random_exponential,
)

from graph_memory import metrics
from graph_memory.admission import Admission
from graph_memory.cypher import CypherCatalog, catalog
from graph_memory.domain import as_datetime
from graph_memory.errors import Conflict, StoreUnavailable
from graph_memory.session_share import DEFAULT_POOL, session_slot
from graph_memory.settings import Neo4jConnection
from graph_memory.temporal.clock import clock_after

__all__ = ["Database", "Record", "Tx"]

Record = dict[str, Any]
T = TypeVar("T")


log = logging.getLogger("graph_memory.db")


def _unavailable(e: Exception) -> StoreUnavailable:
    """The driver's message names the server's host and port: operators read it in the log,
    clients get a message that tells them only to retry."""
    log.warning("Neo4j unavailable after retries: %s", e)
    metrics.NEO4J_UNAVAILABLE.inc()
    return StoreUnavailable("the memory store is unavailable; retry later")


class LockedLate(Exception):  # a signal to run the transaction again, never a caller's
    """A scope lock taken after the transaction read its clock whose last writer or reader
    (services/read_basis.py) had already passed that clock: changes stamped with it would land
    before a moment already fixed in the scope. The transaction is run again, the scopes
    locked before its clock (``Tx.early``)."""

    def __init__(self, scopes: set[tuple[str, str]]) -> None:
        super().__init__(f"scope locks taken after the clock: {sorted(scopes)}")
        self.scopes = scopes


class Tx:
    """A transaction handed to repository code: runs named queries only."""

    def __init__(
        self,
        tx: AsyncManagedTransaction,
        queries: CypherCatalog,
        early: set[tuple[str, str]] | None = None,
    ) -> None:
        self._tx = tx
        self._queries = queries
        # (tenant, scope) locks to take with the first scope locks, before the clock: a
        # previous attempt took them after it, too late (LockedLate).
        self.early: set[tuple[str, str]] = set(early or ())
        # The write locks this transaction holds (repositories/locks.py): taking one again is
        # a no-op, since re-locking a lock node we hold can deadlock against a waiter.
        self.held: set[tuple[str, ...]] = set()
        # The latest clock earlier writers stamped on the scope locks taken (lock/_scopes) or
        # the server's clock less CLOCK_SKEW when they were taken, whichever is later, and the
        # latest this transaction stamps its changes with (``clock``; recorded on its scope
        # locks at commit by ``seal``).
        self.floor: datetime | None = None
        self.stamp: datetime | None = None
        # When (monotonic seconds) the clock was first read: seal holds it to WRITE_TX_LIMIT.
        self.clocked: float | None = None

    def locked(
        self, lock_stamp: Any, scopes: Iterable[tuple[str, str]] = (), server_now: Any = None
    ) -> None:
        """Note the stamp a lock statement read from the locks it took (``scopes``, as
        (tenant, scope)) and the server's clock then. Raises LockedLate when the clock was
        read already and the locks' stamp is not before it (write_tx runs the transaction
        again, those locked first)."""
        at = as_datetime(lock_stamp)
        if at is not None and self.stamp is not None and at >= self.stamp:
            raise LockedLate(set(scopes))
        # Before the clock is read, the server's clock (less CLOCK_SKEW) is a floor too: a
        # process whose clock runs further behind still stamps after every moment a read may
        # take as final without looking (services/read_basis.FINAL_AFTER), also in a scope no
        # one has written yet (whose lock carries no stamp).
        server = as_datetime(server_now) if self.stamp is None else None
        server = server - CLOCK_SKEW if server is not None else None
        for t in (at, server):
            if t is not None and (self.floor is None or t > self.floor):
                self.floor = t

    def clock(self, now: datetime, stamps: Iterable[datetime | None] = ()) -> datetime:
        """The moment this transaction stamps its changes with, read after its locks
        (temporal/clock.py): ``now``, or just after the latest of ``stamps`` (what the
        changed slots hold) and of the clocks earlier writers of its scopes used, which
        another service process whose clock runs ahead may have written."""
        at = clock_after(now, [*stamps, self.floor])
        if self.clocked is None:
            self.clocked = time.monotonic()
        if self.stamp is None or at > self.stamp:
            self.stamp = at
        return at

    async def seal(self) -> None:
        """Before commit: the scope locks held remember this transaction's clock. Raises
        StoreUnavailable (the transaction rolls back) when the clock was read longer than
        WRITE_TX_LIMIT ago: a read as of a moment that old already took it as final."""
        if self.stamp is None:  # (always after ``floor`` otherwise: clock_after)
            return
        if self.clocked is not None and time.monotonic() - self.clocked > (
            WRITE_TX_LIMIT.total_seconds()
        ):
            log.warning("a write held its clock past %s; rolled back", WRITE_TX_LIMIT)
            raise StoreUnavailable(
                f"the write took longer than {WRITE_TX_LIMIT.total_seconds():.0f} s from its "
                "clock to its commit and was rolled back; nothing of it was saved"
            )
        locks = [{"tenant": k[1], "scope": k[2]} for k in self.held if k[0] == "scope"]
        tenants = [k[1] for k in self.held if k[0] == "all_scopes"]
        if locks or tenants:
            await self.run("lock.stamp", {"locks": locks, "tenants": tenants, "stamp": self.stamp})

    async def run(self, name: str, params: Mapping[str, Any]) -> list[Record]:
        query = self._queries[name]
        began = time.perf_counter()
        result = await self._tx.run(query.text, query.bind(dict(params)))
        records = await _records(result)
        metrics.observe_neo4j_query(name, time.perf_counter() - began)
        return records


_TRANSIENT = (ServiceUnavailable, SessionExpired, TransientError)
# The longest a transaction may hold a clock reading before it commits (Tx.seal refuses to
# commit later: rolled back, nothing of it saved). So no write still in flight stamps a moment
# older than this: services/read_basis.py answers a read as of an older moment with no look
# at the locks. Far above any stamping write's batch (a few seconds at most); a transaction
# that stamps nothing (a consolidation dry run, which never commits; a bulk statement) is not
# bound by it.
WRITE_TX_LIMIT = timedelta(minutes=5)
# How far the clocks of service processes and of the Neo4j server writing one store may
# disagree (NTP keeps them within milliseconds; this is an assumption the time rule rests on,
# not a target). A writer's clock is floored by the server's clock less this (Tx.locked): a
# process further behind cannot stamp into a past already answered, while one merely a few
# ms behind a server that runs ahead keeps stamping by its own clock, so it reads its own
# writes at once.
CLOCK_SKEW = timedelta(minutes=1)
# How often a write runs again to take late scope locks before its clock (LockedLate): each
# attempt adds the scopes found late, so a change's reach is settled in a few.
LATE_LOCK_RETRIES = 4
_BATCHED = re.compile(r"\bIN\s+TRANSACTIONS\b", re.IGNORECASE)

# The driver's Record.data() walks every value through abstract-base-class isinstance checks:
# on a 20-row fact page that was a fifth of the request's Python time. Our queries return maps,
# lists and scalars, so those take an exact-type fast path; anything else (a node, a path)
# falls back to the driver's own rules and comes out the same as data() would give.
_DRIVER_EXPORT = RecordExporter()
_LEAVES = frozenset({str, int, float, bool, type(None), bytes})


def _plain(value: Any) -> Any:
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is list:
        return [_plain(v) for v in value]
    if kind is dict:
        return {k: _plain(v) for k, v in value.items()}
    return _DRIVER_EXPORT.transform(value)  # type: ignore[no-untyped-call]


async def _records(result: AsyncResult) -> list[Record]:
    keys = result.keys()
    return [dict(zip(keys, map(_plain, row), strict=True)) for row in await result.values()]


def _retrying(access: str) -> AsyncRetrying:
    retries = metrics.NEO4J_RETRIES.labels(access)
    return AsyncRetrying(
        retry=retry_if_exception_type(_TRANSIENT),
        stop=stop_after_attempt(5),
        wait=wait_random_exponential(multiplier=0.05, max=2.0),
        before_sleep=lambda _: retries.inc(),
        reraise=True,
    )


class Database:
    def __init__(
        self,
        driver: AsyncDriver,
        database: str,
        queries: CypherCatalog | None = None,
        turns: Admission | None = None,
    ) -> None:
        self.driver = driver
        self.database = database
        self.queries = queries or catalog()
        # Every read session takes a turn of these, per tenant (session_share.py); None:
        # unbounded.
        self.turns = turns

    @classmethod
    def connect(
        cls, conn: Neo4jConnection, pool_size: int = DEFAULT_POOL, turns: int = 0
    ) -> Database:
        """``pool_size``: session_share.pool_size for a service that admits operations;
        ``turns``: sessions at once across tenants, served in turns (0: no limit)."""
        driver = AsyncGraphDatabase.driver(
            conn.uri,
            auth=(conn.user, conn.password),
            max_connection_pool_size=pool_size,
            # The driver's own retry would stack on ours; tenacity owns retry policy.
            max_transaction_retry_time=0,
            # Schema-less property warnings (a label not yet created) are noise, not faults.
            notifications_min_severity="OFF",
        )
        return cls(driver, conn.database, turns=Admission(turns) if turns else None)

    async def close(self) -> None:
        await self.driver.close()

    async def read(self, name: str, params: Mapping[str, Any]) -> list[Record]:
        """One read as an auto-commit query: a single round trip (RUN+PULL), where a managed
        transaction costs a second one for COMMIT; reads are idempotent, so retrying is safe."""
        query = self.queries[name]
        bound = query.bind(dict(params))

        async def once() -> list[Record]:
            began = time.perf_counter()
            async with (
                session_slot(self.turns),
                self.driver.session(
                    database=self.database, default_access_mode=READ_ACCESS
                ) as session,
            ):
                result = await session.run(query.text, bound)
                records = await _records(result)
            metrics.observe_neo4j_query(name, time.perf_counter() - began)
            return records

        began = time.perf_counter()
        try:
            try:
                # First attempt outside tenacity: its bookkeeping costs more than a fast read.
                return await once()
            except _TRANSIENT:
                metrics.NEO4J_RETRIES.labels("read").inc()
                async for attempt in _retrying("read"):
                    with attempt:
                        return await once()
        except (ServiceUnavailable, SessionExpired) as e:
            raise _unavailable(e) from e
        finally:
            metrics.observe_neo4j_call("read", time.perf_counter() - began)
        raise AssertionError("unreachable")  # pragma: no cover

    async def stream(self, name: str, params: Mapping[str, Any]) -> AsyncIterator[Record]:
        """A read too large to hold in memory (an export): records as the driver pulls them.
        Not retried, since records already handed out cannot be taken back."""
        query = self.queries[name]
        bound = query.bind(dict(params))
        try:
            async with (
                session_slot(self.turns),
                self.driver.session(
                    database=self.database, default_access_mode=READ_ACCESS
                ) as session,
            ):
                result = await session.run(query.text, bound)
                keys = result.keys()
                async for record in result:
                    yield dict(zip(keys, map(_plain, record.values()), strict=True))
        except (ServiceUnavailable, SessionExpired) as e:
            raise _unavailable(e) from e

    async def write(self, name: str, params: Mapping[str, Any]) -> list[Record]:
        return await self._run(name, params, write=True)

    async def write_tx(self, fn: Callable[[Tx], Awaitable[T]]) -> T:
        """Run ``fn`` in one write transaction (retried whole on transient faults)."""

        early: set[tuple[str, str]] = set()

        async def work(tx: AsyncManagedTransaction) -> T:
            t = Tx(tx, self.queries, early)
            out = await fn(t)
            await t.seal()
            return out

        try:
            result: T = await self._with_early_locks(work, early)
        except ConstraintError as e:
            # A uniqueness constraint refused the write (two writers racing to create one
            # id): the caller's conflict to resolve, not a fault of the service.
            raise Conflict("the write conflicts with data already stored; retry it") from e
        return result

    async def _with_early_locks(self, work: Any, early: set[tuple[str, str]]) -> Any:
        """``work`` run (and retried) as a write; run again with the scope locks it took after
        its clock taken first (LockedLate), as long as each attempt finds new ones."""
        for _ in range(LATE_LOCK_RETRIES):
            try:
                return await self._with_retry(work, write=True)
            except LockedLate as e:
                if e.scopes <= early:
                    break  # nothing new to lock first: another attempt would meet it too
                early |= e.scopes
                metrics.WRITE_RERUNS.inc()
        raise Conflict("the write kept meeting newer changes of the scopes it reaches; retry it")

    async def read_tx(self, fn: Callable[[Tx], Awaitable[T]]) -> T:
        async def work(tx: AsyncManagedTransaction) -> T:
            return await fn(Tx(tx, self.queries))

        result: T = await self._with_retry(work, write=False)
        return result

    async def write_many(self, steps: list[tuple[str, Mapping[str, Any]]]) -> list[list[Record]]:
        """Run several named queries in ONE write transaction: all land or none does."""
        bound = [(n, self.queries[n].text, self.queries[n].bind(dict(p))) for n, p in steps]

        async def work(tx: AsyncManagedTransaction) -> list[list[Record]]:
            out: list[list[Record]] = []
            for name, text, p in bound:
                began = time.perf_counter()
                result = await tx.run(text, p)
                out.append(await _records(result))
                metrics.observe_neo4j_query(name, time.perf_counter() - began)
            return out

        out: list[list[Record]] = await self._with_retry(work, write=True)
        return out

    async def _run(self, name: str, params: Mapping[str, Any], *, write: bool) -> list[Record]:
        query = self.queries[name]
        bound = query.bind(dict(params))

        async def work(tx: AsyncManagedTransaction) -> list[Record]:
            began = time.perf_counter()
            result = await tx.run(query.text, bound)
            records = await _records(result)
            metrics.observe_neo4j_query(name, time.perf_counter() - began)
            return records

        out: list[Record] = await self._with_retry(work, write=write)
        return out

    async def _with_retry(self, work: Any, *, write: bool) -> Any:
        access = "write" if write else "read"
        began = time.perf_counter()
        try:
            async for attempt in _retrying(access):
                with attempt:
                    async with (
                        # Reads only: see session_share (database turns).
                        session_slot(None if write else self.turns),
                        self.driver.session(database=self.database) as session,
                    ):
                        if write:
                            return await session.execute_write(work)
                        return await session.execute_read(work)
        except (ServiceUnavailable, SessionExpired) as e:
            raise _unavailable(e) from e
        finally:
            metrics.observe_neo4j_call(access, time.perf_counter() - began)
        raise AssertionError("unreachable")  # pragma: no cover

    async def run_raw(self, text: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        """DDL from migration files only (trusted, never user input). A statement that
        commits in batches of its own (``CALL { } IN TRANSACTIONS``) runs in an implicit
        transaction, the only kind that may open others."""
        if _BATCHED.search(text):
            async with self.driver.session(database=self.database) as session:
                result = await session.run(text, dict(params or {}))
                return [r.data() async for r in result]
        records, _, _ = await self.driver.execute_query(
            text, dict(params or {}), database_=self.database, routing_=RoutingControl.WRITE
        )
        return [r.data() for r in records]
