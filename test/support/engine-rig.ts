/**
 * The engine's integration rig: dynalite for the state (one per file), the sandbox as the gym API
 * (a fresh one per test, on its own clock), the engine's gym-API clients, and what a poll is given
 * (the sandbox's clock, a deadline, the sandbox's first club, a state store on a fresh table).
 * `useEngineRig` registers the vitest hooks that start and stop them; call it inside `describe`.
 *
 *   const rig = useEngineRig({ sandbox: { seed: 3, clubs: 1 }, clients: { retry: { baseDelayMs: 1 } } });
 *   it('...', async () => {
 *     const store = await rig.newStore('wm');
 *     await pollClub({ store, sink, clients: rig.clients, owner: 't', now: rig.now }, rig.firstClub(), {
 *       deadlineMs: rig.deadline(),
 *     });
 *   });
 */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type ClubConfig, parseClubsFile } from '../../lambdas/clubs/club-config';
import {
  GymApiClientFactory,
  type GymApiClientFactoryOptions,
} from '../../lambdas/engine/club-poll/client-factory';
import type { ClubContext } from '../../lambdas/sources/source';
import { DynamoDbStateStore } from '../../lambdas/state';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../sandbox';
import { createTestTable, type Dynalite, startDynalite } from './dynalite';

export interface EngineRigOptions {
  /** The sandbox each test gets (started before it, closed after it); a function is called each time. */
  readonly sandbox: SandboxOptions | (() => SandboxOptions);
  /** Options of the rig's client factory. @default the factory's defaults */
  readonly clients?: GymApiClientFactoryOptions;
  /** How long a poll may run, from the moment `deadline()` is called. @default 60_000 */
  readonly pollMs?: number;
}

export interface EngineRig {
  /** The file's dynalite (started before its first test). */
  readonly db: Dynalite;
  /** The current test's sandbox. */
  readonly sandbox: Sandbox;
  /** One client factory for the whole file (its token providers are kept across tests). */
  readonly clients: GymApiClientFactory;
  /** The sandbox's clock, in ms: the engine's `now`. */
  now(): number;
  /** The deadline of a poll starting now (real time: the engine compares it with Date.now()). */
  deadline(): number;
  /** The sandbox's first club, as its clubs file gives it. */
  firstClub(): ClubConfig;
  /** A fresh, empty state table named after `prefix`; its name. */
  newTable(prefix: string): Promise<string>;
  /** A state store on a fresh table named after `prefix`, on the sandbox's clock. */
  newStore(prefix: string): Promise<DynamoDbStateStore>;
}

export function useEngineRig(options: EngineRigOptions): EngineRig {
  let db: Dynalite | undefined;
  let sandbox: Sandbox | undefined;
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the engine rig's ${what} is not running (outside a test?)`);
    return value;
  };
  beforeAll(async () => {
    db = await startDynalite();
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    const sandboxOptions = typeof options.sandbox === 'function' ? options.sandbox() : options.sandbox;
    sandbox = await startSandbox(sandboxOptions);
  });
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });
  const now = () => started(sandbox, 'sandbox').clock.now().getTime();
  return {
    get db() {
      return started(db, 'dynalite');
    },
    get sandbox() {
      return started(sandbox, 'sandbox');
    },
    clients: new GymApiClientFactory(options.clients),
    now,
    deadline: () => Date.now() + (options.pollMs ?? 60_000),
    firstClub: () => parseClubsFile(started(sandbox, 'sandbox').clubsFile())[0]!,
    newTable: (prefix) => createTestTable(started(db, 'dynalite').client, prefix),
    newStore: async (prefix) => {
      const { client } = started(db, 'dynalite');
      return new DynamoDbStateStore({ client, tableName: await createTestTable(client, prefix), now });
    },
  };
}

/** What a source's poll is told about its club (pollSource's `ctx`). */
export function clubContext(club: ClubConfig): Omit<ClubContext, 'observedAtMs'> {
  return {
    clubId: club.clubId,
    timeZone: club.timeZone,
    unstatedZone: club.unstatedZone,
    piiPolicy: club.piiPolicy,
  };
}
