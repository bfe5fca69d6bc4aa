/**
 * `events sample --type T`: realistic events of one detail-type, produced by the real engine
 * against an in-process sandbox (../../sample-events/), printed one JSON a line as a rule target
 * receives them, as the detail alone, or as PutEvents entries.
 */

import { toEventBridgeEvent, toPutEventsEntry } from '../../../event-tooling/eventbridge-event';
import { logger } from '../../../lambdas/common/logger';
import { ALL_DETAIL_TYPES, type BridgeEvent } from '../../../lambdas/events/catalog';
import { CliUsageError, intFlag, piiFlag } from '../../args';
import { checkBusName } from '../../preflight';
import { MAX_SAMPLE_COUNT, SampleError, sampleEvents } from '../../sample-events';
import { cliEventSource, detailTypeFlag, type Flags } from './flags';

export const FORMATS = ['eventbridge', 'detail', 'putevents'] as const;
type Format = (typeof FORMATS)[number];

export async function sample(flags: Flags): Promise<number> {
  const types = flags.type ?? [];
  if (types.length === 0)
    throw new CliUsageError(`--type is required: one of ${ALL_DETAIL_TYPES.join(', ')}`);
  if (types.length > 1) throw new CliUsageError('events sample takes one --type');
  const detailType = detailTypeFlag(types[0]!);
  const count = intFlag('count', flags.count, { min: 1, max: MAX_SAMPLE_COUNT, default: 3 });
  const seed = intFlag('seed', flags.seed, { min: 0, max: 2 ** 31 - 1, default: 1 });
  const format = (flags.format ?? 'eventbridge') as Format;
  if (!FORMATS.includes(format))
    throw new CliUsageError(`--format must be one of ${FORMATS.join(', ')}, got '${flags.format}'`);
  const pii = piiFlag(flags.pii);
  if (flags.account !== undefined && !/^\d{12}$/.test(flags.account))
    throw new CliUsageError(`--account must be 12 digits, got '${flags.account}'`);
  if (flags.region !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d+$/.test(flags.region))
    throw new CliUsageError(`--region must be an AWS region such as eu-west-1, got '${flags.region}'`);
  if (flags.bus !== undefined) {
    if (format !== 'putevents') throw new CliUsageError('--bus goes with --format putevents');
    checkBusName(flags.bus);
  }
  const source = cliEventSource(flags['event-source'], flags.stage, true) ?? 'gym-bridge';

  // The engine logs the failures the operational samples provoke (401, 429, 503, 404): by design
  // here, so not shown unless asked for with --log-level info or debug.
  const level = logger.getLevelName();
  const quiet = level !== 'DEBUG' && level !== 'INFO' && level !== 'TRACE';
  if (quiet) logger.setLogLevel('SILENT');
  let events: BridgeEvent[];
  try {
    events = await sampleEvents({ detailType, count, seed, piiPolicy: pii });
  } catch (err) {
    if (err instanceof SampleError) {
      process.stderr.write(`gym-bridge events sample: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    if (quiet) logger.setLogLevel(level);
  }
  const lines = events.map((event) => {
    if (format === 'detail') return JSON.stringify(event.detail);
    if (format === 'putevents') return JSON.stringify(toPutEventsEntry(event, source, flags.bus));
    return JSON.stringify(
      toEventBridgeEvent(event, {
        source,
        ...(flags.account ? { account: flags.account } : {}),
        ...(flags.region ? { region: flags.region } : {}),
      }),
    );
  });
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
