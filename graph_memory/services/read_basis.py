"""A read as of a moment answers what it will always answer: the writes it may see are all in.

A writer stamps its changes under its scope's lock and commits a little later (services/
facts/writes.py), so without this a read as of a moment just past could miss a write stamped
before that moment and committed after the read, and the same question asked again would get
another answer: the past would change. XTDB calls the fix the read's basis; here it rests on
the scope locks every writer takes (repositories/locks.py):

- a lock's committed ``stamp`` is the latest clock its writers stamped with, and a writer reads
  its clock after taking the lock, just after that stamp (temporal/clock.py). So once a scope's
  stamp is at or after ``as_of``, every writer of it still in flight or still to come stamps
  after ``as_of``: the answer is final. That is the common case (any moment before the scope's
  last write), read once and then remembered, since a stamp never moves back;
- otherwise the read pins its scopes (lock/pin): it waits for the writer holding a lock to
  commit, then raises the stamp to ``as_of`` (or to our clock when the pin began, if later:
  every moment until then is final as well). Writers after it stamp after it, in this process
  or another whose clock runs behind. A scope never written keeps no lock to raise: its first
  writer stamps by its own clock (after ``as_of`` unless that clock runs behind), and the
  scope is not remembered as settled.
- a writer whose change reaches a scope it locked only after reading its clock (a conclusion
  in another scope flagged, a held candidate released) and finds that scope already past its
  clock runs again with that lock taken first (db.LockedLate).

A moment older than FINAL_AFTER needs no look at all: a write commits within
db.WRITE_TX_LIMIT of reading its clock (Tx.seal rolls it back otherwise), so no write in flight
can stamp before such a moment, provided service processes' clocks agree within CLOCK_SKEW
(which also covers a commit's own few milliseconds).

A moment a little in the future is waited for (a client's clock may run ahead of ours); a
moment further ahead is answered with what is believed now and promises nothing, since writes
before it are still to come. A read without ``as_of`` (now) is not pinned: it already sees every
committed write, its caller's own included. Excision (forgetting a contributor) and a rollback
change the past on purpose and are not held back by this.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Iterable
from datetime import datetime, timedelta

from graph_memory.db import CLOCK_SKEW, WRITE_TX_LIMIT
from graph_memory.domain import utcnow
from graph_memory.repositories.read_basis import ReadBasisRepository

__all__ = ["ReadBasis"]

# How far ahead of our clock an asOf is waited for rather than answered unpinned: clock skew
# between a client and the service, not a way to hold a read open.
AHEAD_WAITED = timedelta(milliseconds=250)
# A moment at most this far back is taken as not passed yet by its scopes' writers.
RECENT = timedelta(seconds=1)
# A moment at least this far back is final with no look at the locks (the module says why).
FINAL_AFTER = WRITE_TX_LIMIT + CLOCK_SKEW
# Scopes whose settled moment is remembered (per tenant and scope; least recently used go).
REMEMBERED = 50_000


class ReadBasis:
    def __init__(self, repo: ReadBasisRepository, remembered: int = REMEMBERED) -> None:
        self.repo = repo
        self.remembered = remembered
        # (tenant, scope) -> a moment no answer of the scope as of which can change any more.
        self._settled: OrderedDict[tuple[str, str], datetime] = OrderedDict()

    async def settle(self, tenant: str, scopes: Iterable[str], as_of: datetime | None) -> None:
        """Return once the answer of ``scopes`` as of ``as_of`` is final (see the module)."""
        if as_of is None:
            return
        ahead = as_of - utcnow()
        if ahead > AHEAD_WAITED:
            return
        if ahead > timedelta(0):
            await asyncio.sleep(ahead.total_seconds())
        elif -ahead > FINAL_AFTER:
            return
        open_ = sorted({s for s in scopes if not self._settled_at(tenant, s, as_of)})
        if not open_:
            return
        if ahead < -RECENT:
            # Long enough ago that the scopes' writers have most likely passed it: one read of
            # their stamps, no lock. A moment just past (asOf = the client's now) is rarely
            # passed yet, so it goes straight to the pin.
            for scope, stamp in (await self.repo.stamps(tenant, open_)).items():
                if stamp is not None:
                    self._remember(tenant, scope, stamp)
        behind = [s for s in open_ if not self._settled_at(tenant, s, as_of)]
        if behind:
            # Pinned up to now, not only to asOf (taken before the pin waits for the locks):
            # every moment until then is final too, so the next reads of this scope as of any
            # of them need nothing.
            upto = max(as_of, utcnow())
            unwritten = await self.repo.pin(tenant, behind, upto)
            # A scope never written keeps no lock to carry the pin (see above): not remembered.
            for scope in behind:
                if scope not in unwritten:
                    self._remember(tenant, scope, upto)

    def _settled_at(self, tenant: str, scope: str, as_of: datetime) -> bool:
        known = self._settled.get((tenant, scope))
        if known is None or known < as_of:
            return False
        self._settled.move_to_end((tenant, scope))
        return True

    def _remember(self, tenant: str, scope: str, at: datetime) -> None:
        key = (tenant, scope)
        known = self._settled.get(key)
        self._settled[key] = at if known is None or at > known else known
        self._settled.move_to_end(key)
        while len(self._settled) > self.remembered:
            self._settled.popitem(last=False)
