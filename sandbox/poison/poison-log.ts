/**
 * The poison log: every bad record poison mode stored and every response it bent, in order. Kept
 * apart from the ground-truth journal, which holds real changes only: a checker compares the
 * bridge's events with the journal, and its quarantine with this log.
 */
import type { OperationName } from '../../lambdas/gym-api/operations';
import type { PoisonKind } from './settings';

/**
 * What a bridge should do with the entry:
 * - `quarantine`: the record has no usable identity, or what identifies or dates it breaks the API
 *   document: never published, reported in the quarantine;
 * - `either`: published (the event carries the marker) or quarantined, at most one event;
 * - `once`: a real record served again (its change is in the journal): exactly one event;
 * - `recover`: a response habit: get past it (retry, stop paging) losing and duplicating nothing,
 *   leaking no credential.
 */
export type PoisonExpectation = 'quarantine' | 'either' | 'once' | 'recover';

export interface PoisonLogEntry {
  readonly seq: number;
  /** `stored`: a bad record in a club's data; `response`: a habit of one response. */
  readonly where: 'stored' | 'response';
  /** Absent on a token request, whose club is not known. */
  readonly clubId?: string;
  readonly operation: OperationName | 'token';
  readonly kind: PoisonKind;
  readonly variant: string;
  /**
   * `~poison-<n>` in a stored record, `~poison-r<n>` in a huge page's padding record; '' when the
   * record carries none (a real record repeated, a response without a record of its own).
   */
  readonly marker: string;
  /** Dotted path of the field that carries the marker (`Number`, `Contact.Email`, ...). */
  readonly markerField?: string;
  /** Dotted path of the poisoned field (`Items.0.ItemId`), or `*` for the whole record. */
  readonly field?: string;
  readonly expect: PoisonExpectation;
  /** UTC ISO instant of the sandbox clock when it was stored or served. */
  readonly at: string;
  /** Stored: the time the record is filed (and filtered) under, as the API writes that field. */
  readonly recordTime?: string;
  /** Stored: the identity a bridge would use, when the record has a usable one. */
  readonly identity?: string;
  /** Stored: 2 when the record is served twice in a row. */
  readonly copies?: number;
  /** Response: the status sent and the request's paging. */
  readonly status?: number;
  readonly request?: { readonly offset: number; readonly limit: number };
}

export type PoisonLogInput = Omit<PoisonLogEntry, 'seq' | 'marker'>;

const MARKER = /~poison-(r?)(\d+)/g;
/** Poison payment, POS and POS item ids (record-shapes.ts): 9200..., 9210..., 9220... */
const POISON_ID = /92[0-2]\d{16}/g;

/** The marker of stored record `n`. */
export const storedMarker = (n: number) => `~poison-${n}`;

export class PoisonLog {
  private readonly list: PoisonLogEntry[] = [];
  private readonly byMarker = new Map<string, PoisonLogEntry>();
  /** Stored entries by their int64 id (payments, POS), which carries no marker text. */
  private readonly byId = new Map<string, PoisonLogEntry>();
  private storedCount = 0;
  private responseCount = 0;

  get lastSeq(): number {
    return this.list.length;
  }

  /**
   * The number of the next stored record (its marker is `~poison-<n>`). Stored and response
   * markers are counted apart, so the stored records of a seed are the same whatever requests
   * were made.
   */
  nextStoredNumber(): number {
    return ++this.storedCount;
  }

  /** The marker of the next response that carries one (`~poison-r<n>`). */
  nextResponseMarker(): string {
    return `~poison-r${++this.responseCount}`;
  }

  record(entry: PoisonLogInput, marker = ''): PoisonLogEntry {
    const full: PoisonLogEntry = { seq: this.list.length + 1, ...entry, marker };
    this.list.push(full);
    if (marker) this.byMarker.set(marker, full);
    if (full.identity && /^92[0-2]\d{16}$/.test(full.identity)) this.byId.set(full.identity, full);
    return full;
  }

  /** Entries with seq greater than `sinceSeq` (all entries when omitted). */
  entries(sinceSeq = 0): PoisonLogEntry[] {
    return this.list.slice(Math.max(0, Math.floor(sinceSeq)));
  }

  /**
   * The entries whose markers (or poison int64 ids) occur in `text` (an event, a quarantined
   * record as JSON), each once, in log order.
   */
  find(text: string): PoisonLogEntry[] {
    const found = new Set<PoisonLogEntry>();
    for (const m of text.matchAll(MARKER)) {
      const entry = this.byMarker.get(m[0]);
      if (entry) found.add(entry);
    }
    if (this.byId.size > 0) {
      for (const m of text.matchAll(POISON_ID)) {
        const entry = this.byId.get(m[0]);
        if (entry) found.add(entry);
      }
    }
    return [...found].sort((a, b) => a.seq - b.seq);
  }

  /**
   * The same for a parsed value, walked without recursion: safe on the 6,000-deep records, where
   * JSON.stringify throws (V8 gives up near 5,000 levels). Keys and string values are searched.
   */
  findIn(value: unknown): PoisonLogEntry[] {
    const found = new Set<PoisonLogEntry>();
    const stack: unknown[] = [value];
    while (stack.length > 0) {
      const v = stack.pop();
      if (typeof v === 'string') {
        if (v.includes('~poison-') || this.byId.has(v)) for (const e of this.find(v)) found.add(e);
      } else if (typeof v === 'bigint') {
        const entry = this.byId.get(v.toString());
        if (entry) found.add(entry);
      } else if (typeof v === 'object' && v !== null) {
        for (const [k, child] of Object.entries(v)) {
          if (k.includes('~poison-')) stack.push(k);
          stack.push(child);
        }
      }
    }
    return [...found].sort((a, b) => a.seq - b.seq);
  }
}
