/**
 * What the clubs-cli*.test.ts files run `npm run cli -- clubs ...` against: dynalite with a state
 * table, the local Secrets Manager (through AWS_ENDPOINT_URL_*) and a temporary folder for clubs
 * files; the CLI as a child process, and the flags of a `clubs add` of one club.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_ENTRY } from '../../support/cli-process';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';
import { type LocalSecretsManager, startLocalSecretsManager } from '../../support/local-secrets-manager';

export interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  readonly env?: Record<string, string>;
  readonly stdin?: string;
}

export interface ClubsCliEnv {
  readonly db: Dynalite;
  readonly sm: LocalSecretsManager;
  readonly tableName: string;
  /** A temporary folder for clubs files, removed by `close`. */
  readonly dir: string;
  /** `clubs ...args` with the endpoints and test credentials in its environment. */
  readonly cli: (args: string[], options?: CliOptions) => Promise<Result>;
  /** `add` of one club with every flag but its credentials (username integrator-1). */
  readonly addFlags: (clubId: string) => string[];
  readonly close: () => Promise<void>;
}

/** Starts dynalite and Secrets Manager (for a file's beforeAll). */
export async function startClubsCliEnv(): Promise<ClubsCliEnv> {
  const db = await startDynalite();
  const sm = await startLocalSecretsManager();
  const tableName = await createTestTable(db.client, 'cli-clubs');
  const dir = await mkdtemp(join(tmpdir(), 'clubs-cli-'));

  const cli = (args: string[], options: CliOptions = {}) =>
    new Promise<Result>((resolve, reject) => {
      const child = spawn(process.execPath, [...CLI_ENTRY, 'clubs', ...args], {
        cwd: process.cwd(),
        env: {
          ...process.env,
          AWS_ACCESS_KEY_ID: 'x',
          AWS_SECRET_ACCESS_KEY: 'x',
          AWS_REGION: 'us-east-1',
          AWS_ENDPOINT_URL_DYNAMODB: db.endpoint,
          AWS_ENDPOINT_URL_SECRETS_MANAGER: sm.endpoint,
          ...options.env,
        },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(options.stdin ?? '');
    });

  const addFlags = (clubId: string) => [
    'add',
    '--table',
    tableName,
    '--club-id',
    clubId,
    '--base-url',
    'https://api.example.com/v1',
    '--time-zone',
    'Australia/Sydney',
    '--plan',
    'advanced',
    '--username',
    'integrator-1',
  ];

  return {
    db,
    sm,
    tableName,
    dir,
    cli,
    addFlags,
    close: async () => {
      await Promise.all([db.close(), sm.close(), rm(dir, { recursive: true, force: true })]);
    },
  };
}
