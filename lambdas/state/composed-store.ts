/**
 * A StateStore made of one adapter per narrow port (the club state item: lease, cursors and quota;
 * the seen set, snapshots, quarantine): each method is its port's. DynamoDbStateStore and
 * MemoryStateStore are this, with their own adapters; `sessionStore` is this with a poll's session
 * serving the cursors and the counter.
 */
import type { LifecycleStore } from './lifecycle-store';
import type {
  ClubSession,
  ClubStateStore,
  CursorStore,
  QuarantineStore,
  QuotaStore,
  SeenAt,
  SeenStore,
  SnapshotStore,
  SourceName,
  StateStore,
} from './store';

export interface StatePorts {
  readonly clubs: ClubStateStore;
  readonly cursors: CursorStore;
  readonly quota: QuotaStore;
  readonly seen: SeenStore;
  readonly snapshots: SnapshotStore;
  readonly quarantine: QuarantineStore;
  readonly lifecycle: LifecycleStore;
}

/** Notes the earliest instant of the visits or payments a poll files (what the evaluation re-reads). */
function noteSeenAt(session: ClubSession, source: SourceName, entries: readonly SeenAt[]): void {
  if (source !== 'visits' && source !== 'paymentHistory') return;
  let fromMs = Number.POSITIVE_INFINITY;
  for (const entry of entries) {
    const ms = Date.parse(entry.at);
    if (ms < fromMs) fromMs = ms;
  }
  if (!Number.isFinite(fromMs)) return;
  session.noteLifecycle(source === 'visits' ? { visitsFromMs: fromMs } : { paymentsFromMs: fromMs });
}

type Args<P, K extends keyof P> = P[K] extends (...args: infer A) => unknown ? A : never;

export class ComposedStateStore implements StateStore {
  constructor(private readonly ports: StatePorts) {}

  getCursor(...args: Args<CursorStore, 'getCursor'>) {
    return this.ports.cursors.getCursor(...args);
  }
  listCursors(...args: Args<CursorStore, 'listCursors'>) {
    return this.ports.cursors.listCursors(...args);
  }
  putCursor(...args: Args<CursorStore, 'putCursor'>) {
    return this.ports.cursors.putCursor(...args);
  }
  openClub(...args: Args<ClubStateStore, 'openClub'>) {
    return this.ports.clubs.openClub(...args);
  }
  readClubStates(...args: Args<ClubStateStore, 'readClubStates'>) {
    return this.ports.clubs.readClubStates(...args);
  }
  filterSeen(...args: Args<SeenStore, 'filterSeen'>) {
    return this.ports.seen.filterSeen(...args);
  }
  putSeen(...args: Args<SeenStore, 'putSeen'>) {
    return this.ports.seen.putSeen(...args);
  }
  seenSince(...args: Args<SeenStore, 'seenSince'>) {
    return this.ports.seen.seenSince(...args);
  }
  seenEntriesSince(...args: Args<SeenStore, 'seenEntriesSince'>) {
    return this.ports.seen.seenEntriesSince(...args);
  }
  putSeenAt(...args: Args<SeenStore, 'putSeenAt'>) {
    return this.ports.seen.putSeenAt(...args);
  }
  getSeenDigest(...args: Args<SeenStore, 'getSeenDigest'>) {
    return this.ports.seen.getSeenDigest(...args);
  }
  putSeenDigest(...args: Args<SeenStore, 'putSeenDigest'>) {
    return this.ports.seen.putSeenDigest(...args);
  }
  getSnapshots(...args: Args<SnapshotStore, 'getSnapshots'>) {
    return this.ports.snapshots.getSnapshots(...args);
  }
  putSnapshots(...args: Args<SnapshotStore, 'putSnapshots'>) {
    return this.ports.snapshots.putSnapshots(...args);
  }
  listSnapshots(...args: Args<SnapshotStore, 'listSnapshots'>) {
    return this.ports.snapshots.listSnapshots(...args);
  }
  addQuotaUsage(...args: Args<QuotaStore, 'addQuotaUsage'>) {
    return this.ports.quota.addQuotaUsage(...args);
  }
  getQuotaUsage(...args: Args<QuotaStore, 'getQuotaUsage'>) {
    return this.ports.quota.getQuotaUsage(...args);
  }
  putQuarantined(...args: Args<QuarantineStore, 'putQuarantined'>) {
    return this.ports.quarantine.putQuarantined(...args);
  }
  listQuarantined(...args: Args<QuarantineStore, 'listQuarantined'>) {
    return this.ports.quarantine.listQuarantined(...args);
  }
  getLifecycle(...args: Args<LifecycleStore, 'getLifecycle'>) {
    return this.ports.lifecycle.getLifecycle(...args);
  }
  putLifecycle(...args: Args<LifecycleStore, 'putLifecycle'>) {
    return this.ports.lifecycle.putLifecycle(...args);
  }
}

/**
 * The store a poll works with while it holds `session`: its cursors and counter are the session's,
 * and every other write (seen set, snapshots, quarantine) first checks that the session's lease is
 * still held, so a poller that outlived its lease stops writing (the state item's own writes are
 * conditional on the lease in the table). The snapshots of members and prospects it writes, and
 * the visits and payments it files in the seen set, are noted in the session first
 * (lifecycle-notes.ts): the next lifecycle evaluation reads those, not everything.
 */
export function sessionStore(base: StateStore, session: ClubSession): StateStore {
  const fenced =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      session.assertLeaseHeld();
      return write(...args);
    };
  const seen: SeenStore = {
    filterSeen: (...args) => base.filterSeen(...args),
    seenSince: (...args) => base.seenSince(...args),
    seenEntriesSince: (...args) => base.seenEntriesSince(...args),
    putSeen: fenced((...args: Args<SeenStore, 'putSeen'>) => base.putSeen(...args)),
    putSeenAt: fenced((...args: Args<SeenStore, 'putSeenAt'>) => {
      noteSeenAt(session, args[1], args[2]);
      return base.putSeenAt(...args);
    }),
    getSeenDigest: (...args) => base.getSeenDigest(...args),
    putSeenDigest: fenced((...args: Args<SeenStore, 'putSeenDigest'>) => base.putSeenDigest(...args)),
  };
  const snapshots: SnapshotStore = {
    getSnapshots: (...args) => base.getSnapshots(...args),
    putSnapshots: fenced((...args: Args<SnapshotStore, 'putSnapshots'>) => {
      const ids = args[2].map((s) => s.id);
      if (ids.length > 0) session.noteLifecycle(args[1] === 'MEMBER' ? { members: ids } : { prospects: ids });
      return base.putSnapshots(...args);
    }),
    listSnapshots: (...args) => base.listSnapshots(...args),
  };
  const quarantine: QuarantineStore = {
    listQuarantined: (...args) => base.listQuarantined(...args),
    putQuarantined: fenced((...args: Args<QuarantineStore, 'putQuarantined'>) =>
      base.putQuarantined(...args),
    ),
  };
  const lifecycle: LifecycleStore = {
    getLifecycle: (...args) => base.getLifecycle(...args),
    putLifecycle: fenced((...args: Args<LifecycleStore, 'putLifecycle'>) => base.putLifecycle(...args)),
  };
  return new ComposedStateStore({
    clubs: base,
    cursors: session,
    quota: session,
    seen,
    snapshots,
    quarantine,
    lifecycle,
  });
}
