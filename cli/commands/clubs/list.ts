/** `clubs list`: the registered clubs (enabled, or --all), as a table or --json, without credentials. */

import type { ClubRecord } from '../../../lambdas/clubs';
import { textTable } from '../../format';
import { registryFor } from './state-table';
import type { Flags } from './usage';

export async function list(flags: Flags, tableName: string): Promise<number> {
  const registry = await registryFor(tableName);
  const { clubs } = flags.all ? await registry.listAll() : await registry.listEnabled();
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(clubs, null, 2)}\n`);
    return 0;
  }
  if (clubs.length === 0) {
    process.stdout.write(`no ${flags.all ? '' : 'enabled '}clubs in ${tableName}\n`);
    return 0;
  }
  process.stdout.write(`${formatTable(clubs)}\n`);
  return 0;
}

function formatTable(clubs: readonly ClubRecord[]): string {
  const header = ['CLUB', 'ENABLED', 'PLAN', 'TIME ZONE', 'PII', 'SOURCES', 'BASE URL', 'SECRET'];
  const rows = clubs.map((c) => [
    c.clubId,
    c.enabled ? 'yes' : 'no',
    c.plan,
    c.timeZone,
    c.piiPolicy ?? 'default',
    c.sources?.join(',') ?? 'default',
    c.baseUrl,
    c.secretName,
  ]);
  return textTable([header, ...rows]);
}
