import type { scheduleChanges } from '../../db/schema';
import type { Leg } from '../../suppliers/flights';

export type ScheduleChangeRow = typeof scheduleChanges.$inferSelect;

/** A leg as a schedule change shows it (Interface A's legs: the segments' flights and times). */
const legView = (leg: Leg) => ({
  segments: leg.segments.map((x) => ({
    flight_number: x.flight_number,
    airline: x.airline,
    origin: x.origin,
    destination: x.destination,
    departure: x.departure,
    arrival: x.arrival,
    cabin: x.cabin,
    booking_class: x.booking_class,
  })),
});

/** A schedule change as the order's details keep it, and Interface A shows it (`schedule_change` of a TravelOrder). */
export function scheduleChangeView(r: ScheduleChangeRow) {
  return {
    change_id: r.changeId,
    status: r.status,
    removed: (r.removed as Leg[]).map(legView),
    added: (r.added as Leg[]).map(legView),
    decide_by: r.decideBy.toISOString(),
    default_decision: r.defaultDecision,
    reminded_at: r.remindedAt?.toISOString() ?? null,
    resolved_by: r.resolvedBy,
    resolved_at: r.resolvedAt?.toISOString() ?? null,
  };
}
export type ScheduleChangeView = ReturnType<typeof scheduleChangeView>;
