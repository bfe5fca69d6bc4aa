/**
 * Reading the API's zone-less date-times as instants, per the zone a source declares for them.
 */
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

/** An instant as an API filter value in the given zone. */
export function toFilterValue(
  instantMs: number,
  zone: FilterZone,
  ctx: Pick<ClubContext, 'timeZone' | 'unstatedZone'>,
): string {
  return effectiveZone(zone, ctx) === 'utc' ? utcToApiUtc(instantMs) : utcToLocal(instantMs, ctx.timeZone);
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
