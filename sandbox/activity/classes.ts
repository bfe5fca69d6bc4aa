/** Classes: one session of a timetabled class, its bookings, no-shows, walk-ins and trial prospects. */

import { floorToSecond, formatNaive } from '../naive-time';
import type { ApiClassAttendance } from '../records';
import { type ClassSlot, INSTRUCTORS } from '../vocabulary';
import type { SimulationContext } from './context';

type AttendanceKind = 'attended' | 'noShow' | 'walkIn' | 'prospect';

const STATUS_OF: Record<AttendanceKind, ApiClassAttendance['Status']> = {
  attended: 'Attended',
  noShow: 'NoShow',
  walkIn: 'WalkIn',
  prospect: 'Attended',
};

export function classSession(ctx: SimulationContext, slot: ClassSlot, atMs: number): void {
  const { rng, store } = ctx;
  const active = store.memberStatusSet('Active').size;
  const attendees = Math.min(slot.capacity, rng.poisson((2 + active * 0.012) * ctx.scale));
  const key = floorToSecond(store.local(atMs));
  const seen = new Set<string>();
  for (let i = 0; i < attendees; i++) {
    const kind = rng.weighted<AttendanceKind>([
      ['attended', 70],
      ['noShow', 12],
      ['walkIn', 12],
      ['prospect', 6],
    ]);
    const prospect = kind === 'prospect' ? ctx.pickProspect('OnTrial') : undefined;
    const member = kind === 'prospect' ? undefined : ctx.pickMember('Active');
    const who = prospect?.api.Number ?? member?.api.Number;
    if (!who || seen.has(who)) continue;
    seen.add(who);
    store.addClassAttendance(
      {
        key,
        api: {
          AttendanceId: ctx.ids.attendance++,
          ClassId: slot.classId,
          ClassName: slot.name,
          ClassDateTime: formatNaive(key),
          DurationMinutes: slot.durationMin,
          Instructor: INSTRUCTORS[slot.classId % INSTRUCTORS.length] ?? 'Staff',
          MemberNumber: member?.api.Number ?? null,
          ProspectNumber: prospect?.api.Number ?? null,
          Booked: kind !== 'walkIn',
          Attended: kind !== 'noShow',
          Status: STATUS_OF[kind],
        },
      },
      atMs,
    );
  }
}
