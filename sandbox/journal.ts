/**
 * The ground-truth journal: every change the sandbox makes after its initial history, in order.
 * Tests compare the bridge's events against it. int64 ids appear as decimal strings.
 */

export interface ContactPreferences {
  optOutEmail: boolean;
  optOutSms: boolean;
}

export type JournalChange =
  | { kind: 'visit'; memberNumber: string; visitDateTime: string; door: string; scanSource: string }
  | {
      kind: 'paymentRecorded';
      paymentId: string;
      memberNumber: string;
      paymentDate: string;
      paymentType: string;
      response: string;
    }
  | {
      kind: 'paymentResponseChanged';
      paymentId: string;
      memberNumber: string;
      previous: string;
      current: string;
    }
  | { kind: 'paymentRefunded'; paymentId: string; memberNumber: string; refundedPaymentId: string }
  | { kind: 'posTransaction'; posTransactionId: string; memberNumber?: string; transactionDate: string }
  | { kind: 'disbursement'; memberNumber: string; transactionDate: string; amount: number }
  | { kind: 'debtCollection'; memberNumber: string; debtCollectionDate: string; amount: number }
  | { kind: 'memberJoined'; memberNumber: string; status: string }
  | { kind: 'memberStatusChanged'; memberNumber: string; previous: string; current: string }
  | { kind: 'membershipCancelled'; memberNumber: string; cancellationDate: string }
  | {
      kind: 'memberContactPreferencesChanged';
      memberNumber: string;
      previous: ContactPreferences;
      current: ContactPreferences;
    }
  /** A member edit that no event is expected for (phone, address, expiry date): LastUpdated moves. */
  | { kind: 'memberDetailsChanged'; memberNumber: string; fields: string[] }
  | { kind: 'prospectCreated'; prospectNumber: string; status: string }
  | { kind: 'prospectStatusChanged'; prospectNumber: string; previous: string; current: string }
  | {
      kind: 'classAttendance';
      attendanceId: number;
      memberNumber?: string;
      prospectNumber?: string;
      classId: number;
      className: string;
      classDateTime: string;
      status: string;
    };

export type JournalKind = JournalChange['kind'];

export type JournalEntry = { seq: number; clubId: string; at: string } & JournalChange;

export class Journal {
  private readonly list: JournalEntry[] = [];

  get lastSeq(): number {
    return this.list.length;
  }

  record(clubId: string, atMs: number, change: JournalChange): void {
    this.list.push({ seq: this.list.length + 1, clubId, at: new Date(atMs).toISOString(), ...change });
  }

  /** Entries with seq greater than `sinceSeq` (all entries when omitted). */
  entries(sinceSeq = 0): JournalEntry[] {
    return this.list.slice(Math.max(0, Math.floor(sinceSeq)));
  }
}
