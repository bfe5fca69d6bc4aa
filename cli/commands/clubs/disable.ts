/** `clubs disable`: stops polling a club; its settings, secret and state stay. */
import { CliUsageError } from '../../args';
import { registryFor } from './state-table';
import type { Flags } from './usage';

export async function disable(flags: Flags, tableName: string): Promise<number> {
  const clubId = flags['club-id'];
  if (!clubId) throw new CliUsageError('clubs disable needs --club-id ID');
  const done = await (await registryFor(tableName)).disable(clubId);
  if (!done) {
    process.stderr.write(`gym-bridge clubs: no club '${clubId}' in ${tableName}\n`);
    return 1;
  }
  process.stdout.write(`${clubId}: disabled (settings, secret and state kept; clubs add enables it again)\n`);
  return 0;
}
