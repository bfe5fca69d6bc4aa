/**
 * `explain --clubs FILE --club ID [--member N | --prospect N | --payment ID]`: why did (or didn't)
 * an event fire? What the state table holds of the subject (./../explain/subject-facts.ts) and
 * what it means, in words (./../explain/subject-words.ts) or as JSON; without a subject flag, the
 * club's own operational events (./../explain/club-facts.ts, ./../explain/club-words.ts).
 */
import { readClubsFile } from '../../lambdas/clubs/clubs-file';
import { DynamoDbStateStore } from '../../lambdas/state';
import { CliUsageError, HELP_HINT, parseFlags } from '../args';
import { dynamoDbClient } from '../aws-env';
import { clubOpsFacts } from '../explain/club-facts';
import { renderClubExplanation } from '../explain/club-words';
import { subjectFacts } from '../explain/subject-facts';
import { subjectOf } from '../explain/subject-ref';
import { renderExplanation } from '../explain/subject-words';
import { checkTableExists, checkTableName } from '../preflight';

const HELP = `usage: npm run --silent cli -- explain --clubs FILE --club ID
         [--member N | --prospect N | --payment ID] [--table NAME] [--json]
       npm run --silent cli -- explain --event ID|FILE|JSON [--webhook-table NAME] [--json]

Prints what the bridge knows of one member, prospect or payment of a club, from the state table,
and what it means for its events, in words:
  - the snapshot the bridge compares the subject with, and since when;
  - the events last published for it (eventId, detail-type, the poll that published them): the
    last three of its member or prospect events, kept on its snapshot;
  - a poll that stopped between publishing and its commit (its events come again, same ids);
  - a payment's Responses and refund, and a member's payments, seen in the last 13 days: the
    eventId of each event published, and which were recorded without one (the silent baseline);
  - its lifecycle facts, with an eventId only for those announced;
  - which kinds of events it keeps per subject, and which it cannot tell about: visits, sales,
    disbursements, debt referrals and class attendance are filed by a hash of their record;
  - quarantined records that name it, and why;
  - the source that sees its next change: watermark, what every poll re-reads, last success,
    failures, a pause of the club, an unavailable endpoint.
It never shows an eventId that was not published.

Without --member, --prospect or --payment: the club's operational events (their subject is the
club), per source and for the club: Club Data Stale (since its last success, when announced, or when
it becomes due), Club Source Unavailable (the endpoint's episode), Club Credentials Rejected and
Club Quota Low on a 429 (the club's pause and its episode), Club Quota Low at the alert share (the
month's count); each published (its eventId), pending (owed, not delivered yet) or not due.

  --clubs FILE      clubs file (JSON): the club's zone, sources and payment rules   (required)
  --club ID         the club                                                        (required)
  --member N        a member number     (none of the three: the club's operational events)
  --prospect N      a prospect number
  --payment ID      a payment history Id
  --table NAME      DynamoDB state table (default gym-bridge-state); a local run: the
                    environment local-aws prints, as for status
  --json            print the facts as JSON instead of words

explain --event: an event's webhook deliveries, from the webhook table: per endpoint, whether its
filter takes the event and why not (given the event whole: JSON, or a file as events match reads),
whether it is in the endpoint's dead letters and why, whether it was its last success or failure.
  --event ID|FILE|JSON  an eventId (detail.eventId, the webhook-id), or the event(s)
  --webhook-table NAME  the webhook table (the stack output WebhookTableName; default
                        $WEBHOOK_TABLE_NAME, else gym-bridge-webhooks: local-aws's)

AWS: AWS_REGION, AWS_ENDPOINT_URL_DYNAMODB and the usual credentials (read only).
Exit: 0 explained (also when the bridge knows nothing of the subject: it says so), 2 bad flags,
clubs file or table.`;

const FLAGS = {
  clubs: { type: 'string' },
  club: { type: 'string' },
  member: { type: 'string' },
  prospect: { type: 'string' },
  payment: { type: 'string' },
  table: { type: 'string' },
  json: { type: 'boolean' },
  event: { type: 'string' },
  'webhook-table': { type: 'string' },
} as const;

export async function run(argv: string[]): Promise<number> {
  const flags = parseFlags(argv, FLAGS, HELP);
  if (!flags) return 0;
  if (flags.event !== undefined) {
    const other = (['clubs', 'club', 'member', 'prospect', 'payment', 'table'] as const).filter(
      (f) => flags[f],
    );
    if (other.length > 0)
      throw new CliUsageError(`explain --event does not take ${other.map((f) => `--${f}`).join(', ')}`);
    // Loaded only here: the subject form does not pay for the webhook code's start-up.
    const { explainEvent } = await import('../explain/event-deliveries');
    return explainEvent(flags.event, flags['webhook-table'], flags.json === true);
  }
  if (flags['webhook-table'] !== undefined) throw new CliUsageError('--webhook-table goes with --event');
  if (!flags.clubs || !flags.club)
    throw new CliUsageError(`--clubs FILE and --club ID are required ${HELP_HINT}`);
  const subject = subjectOf(flags);
  const clubs = await readClubsFile(flags.clubs).catch((err: Error) => {
    throw new CliUsageError(err.message);
  });
  const club = clubs.find((c) => c.clubId === flags.club);
  if (!club)
    throw new CliUsageError(
      `club '${flags.club}' is not in ${flags.clubs} (${clubs.map((c) => c.clubId).join(', ')})`,
    );
  const tableName = flags.table ?? 'gym-bridge-state';
  checkTableName(tableName);
  const client = dynamoDbClient();
  await checkTableExists(client, tableName, {
    whenMissing: 'nothing has been polled into it; check --table and AWS_REGION / AWS_ENDPOINT_URL_DYNAMODB',
  });
  const store = new DynamoDbStateStore({ client, tableName });
  if (!subject) {
    const ops = await clubOpsFacts(store, club, Date.now());
    process.stdout.write(flags.json ? `${JSON.stringify(ops, null, 2)}\n` : renderClubExplanation(ops));
    return 0;
  }
  const facts = await subjectFacts(store, club, subject, Date.now());
  process.stdout.write(flags.json ? `${JSON.stringify(facts, null, 2)}\n` : renderExplanation(facts));
  return 0;
}
