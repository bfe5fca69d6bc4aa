/**
 * The subject `explain` is about: a member, a prospect or a payment, by its id, as the flags name it
 * (`--member`, `--prospect`, `--payment`; none: the club's operational events).
 */
import { CliUsageError, HELP_HINT } from '../args';

export type SubjectKind = 'member' | 'prospect' | 'payment';

export interface SubjectRef {
  readonly kind: SubjectKind;
  readonly id: string;
}

/** The one subject the flags name; undefined for none (the club's operational events). */
export function subjectOf(flags: {
  member?: string;
  prospect?: string;
  payment?: string;
}): SubjectRef | undefined {
  const given = (['member', 'prospect', 'payment'] as const).filter((k) => flags[k] !== undefined);
  if (given.length > 1)
    throw new CliUsageError(
      `give at most one of --member, --prospect, --payment (none: the club's operational events) ${HELP_HINT}`,
    );
  const kind = given[0];
  if (!kind) return undefined;
  const id = flags[kind]!.trim();
  if (id === '' || id.length > 64) throw new CliUsageError(`--${kind} must be 1 to 64 characters`);
  if (kind === 'payment' && !/^\d{1,20}$/.test(id))
    throw new CliUsageError(`--payment must be a payment history Id (digits), got '${id}'`);
  return { kind, id };
}
