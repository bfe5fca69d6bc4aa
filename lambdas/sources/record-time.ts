/**
 * Reading the API's zone-less date-times as instants, per the zone a source declares for them.
 */
import { MINUTE_MS } from '../common/time-units';
import { apiUtcToInstant, localToUtc, utcToApiUtc, utcToLocal } from '../common/zoned-time';
import type { ClubContext, FilterZone } from './source';

export function effectiveZone(zone: FilterZone, ctx: Pick<ClubContext, 'unstatedZone'>): 'local' | 'utc' {
  return zone === 'unstated' ? ctx.unstatedZone : zone;
}

/** The instant (UTC ms) of an API date-time in the given zone. */
export function toInstant(
  value: string,
  zone: FilterZone,
  ctx: Pick<ClubContext, 'timeZone' | 'unstatedZone'>,
) {
  return effectiveZone(zone, ctx) === 'utc'
    ? apiUtcToInstant(value)
    : localToUtc(value, ctx.timeZone).instantMs;
}

/**
 * An instant as an API filter value in the given zone: a lower bound, never read as later than the
 * instant. A local wall time in a repeated hour has two readings and the API may take the later
 * one, so the first of the two steps back (30 minutes at a time) to a wall time before the hour.
 */
export function toFilterValue(
  instantMs: number,
  zone: FilterZone,
  ctx: Pick<ClubContext, 'timeZone' | 'unstatedZone'>,
): string {
  if (effectiveZone(zone, ctx) === 'utc') return utcToApiUtc(instantMs);
  let at = Math.floor(instantMs / 1000) * 1000;
  let local = utcToLocal(at, ctx.timeZone);
  for (let step = 0; step < 8; step++) {
    const first = localToUtc(local, ctx.timeZone);
    if (first.flag !== 'ambiguous' || first.instantMs < at) return local;
    at -= 30 * MINUTE_MS;
    local = utcToLocal(at, ctx.timeZone);
  }
  return local;
}

/** `occurredAt` (ISO with Z) and, for local values, `occurredAtLocal`, of a record's time field. */
export function occurrence(
  value: string | null | undefined,
  zone: FilterZone,
  ctx: ClubContext,
): { occurredAt: string; occurredAtLocal?: string } {
  if (!value) return { occurredAt: new Date(ctx.observedAtMs).toISOString() };
  const instant = toInstant(value, zone, ctx);
  const iso = new Date(instant).toISOString();
  return effectiveZone(zone, ctx) === 'local'
    ? { occurredAt: iso, occurredAtLocal: value }
    : { occurredAt: iso };
}

/**
 * The envelope options of an event about a record: club, identity (for the eventId), when it
 * happened (from the record's time field in its zone), when it was observed, who it is about, and
 * the club's PII policy.
 */
export function envelopeFor(
  ctx: ClubContext,
  identity: string[],
  time: { value: string | null | undefined; zone: FilterZone } | { occurredAtMs: number },
  subject: { memberNumber?: string; prospectNumber?: string },
) {
  return {
    clubId: ctx.clubId,
    identity,
    ...('value' in time
      ? occurrence(time.value, time.zone, ctx)
      : { occurredAt: new Date(time.occurredAtMs) }),
    observedAt: new Date(ctx.observedAtMs),
    subject,
    piiPolicy: ctx.piiPolicy,
  };
}
