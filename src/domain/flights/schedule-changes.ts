import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { flightBookings, orders, scheduleChanges } from '../../db/schema';
import type { ScheduleChange } from '../../suppliers/flight-after-sale';
import type { Leg } from '../../suppliers/flights';
import { DomainError, notFound } from '../errors';
import { recordOrderEvent } from '../events';
import { scheduleChangeView, type ScheduleChangeRow } from './schedule-change-view';

export type { ScheduleChangeRow } from './schedule-change-view';

/** How long a partner has to decide on an airline's change, and what happens when it does not (SCHEDULE_CHANGE_*). */
export interface ScheduleChangeSettings {
  /** The partner decides until this many hours before the order's first departure. */
  decisionHours: number;
  /** The partner is reminded this many hours before that deadline. */
  reminderHours: number;
  /** What the engine does at the deadline. */
  default: 'accept' | 'cancel';
}

const HOUR_MS = 3_600_000;

/**
 * Until when the partner may decide (`decisionHours` before the first departure, or at once
 * when that has passed), and when to remind it: null when the reminder's time has passed
 * as the change is told (the first notice is then the last before the deadline).
 */
export function decisionDeadline(departureAt: Date, now: Date, s: Pick<ScheduleChangeSettings, 'decisionHours' | 'reminderHours'>) {
  const decideBy = Math.max(now.getTime(), departureAt.getTime() - s.decisionHours * HOUR_MS);
  const remindAt = decideBy - s.reminderHours * HOUR_MS;
  return { decideBy: new Date(decideBy), remindAt: remindAt > now.getTime() ? new Date(remindAt) : null };
}

/** The first departure of a set of legs (the earliest segment), or null when they have none. */
export function firstDeparture(legs: readonly Leg[]): Date | null {
  const times = legs.flatMap((l) => l.segments.map((s) => Date.parse(s.departure))).filter((t) => Number.isFinite(t));
  return times.length ? new Date(Math.min(...times)) : null;
}

/** Writes the change onto its order's details (what the order's answers and events show) and the event saying so. */
async function showOnOrder(tx: DbOrTx, row: ScheduleChangeRow, event: 'order.schedule_changed' | 'order.schedule_change_resolved'): Promise<void> {
  await tx
    .update(orders)
    .set({ details: sql`${orders.details} || jsonb_build_object('schedule_change', ${JSON.stringify(scheduleChangeView(row))}::jsonb)` })
    .where(eq(orders.id, row.orderId));
  await recordOrderEvent(tx, event, row.orderId);
}

/** What the workflow learns from recording a change: its row, and when to remind. */
export interface RecordedChange {
  row: ScheduleChangeRow;
  remindAt: number | null;
  /** The actions the airline allows on it. */
  availableActions: string[];
}

/**
 * Records an airline's change to an issued order and tells the partner
 * (`order.schedule_changed`), in one transaction; a change already recorded is answered as
 * it is, and told no second time.
 */
export async function recordScheduleChange(
  db: DbOrTx,
  input: { orderId: number; change: ScheduleChange; supplier: string; settings: ScheduleChangeSettings; now: Date },
): Promise<RecordedChange> {
  return db.transaction(async (tx) => {
    const [order] = await tx.select().from(orders).where(eq(orders.id, input.orderId)).for('update');
    if (!order) throw notFound(`order ${input.orderId}`);
    const [existing] = await tx
      .select()
      .from(scheduleChanges)
      .where(and(eq(scheduleChanges.orderId, input.orderId), eq(scheduleChanges.changeId, input.change.change_id)));
    const [booking] = await tx.select().from(flightBookings).where(eq(flightBookings.orderId, input.orderId));
    const departure = firstDeparture([...((booking?.legs ?? []) as Leg[]), ...input.change.added]) ?? booking?.departureAt ?? input.now;
    const { decideBy, remindAt } = decisionDeadline(departure, existing?.createdAt ?? input.now, input.settings);
    const actions = input.change.available_actions;
    if (existing) return { row: existing, remindAt: existing.remindedAt ? null : (remindAt?.getTime() ?? null), availableActions: actions };
    const [row] = await tx
      .insert(scheduleChanges)
      .values({
        orderId: order.id,
        partnerId: order.partnerId,
        supplier: input.supplier,
        changeId: input.change.change_id,
        removed: input.change.removed,
        added: input.change.added,
        decideBy,
        defaultDecision: input.settings.default,
        createdAt: input.now,
      })
      .returning();
    await showOnOrder(tx, row!, 'order.schedule_changed');
    return { row: row!, remindAt: remindAt?.getTime() ?? null, availableActions: actions };
  });
}

/** Reminds the partner of a change still waiting for its decision: `order.schedule_changed` again, with `reminded_at` set. Once. */
export async function remindScheduleChange(db: DbOrTx, input: { orderId: number; changeId: string; now: Date }): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(scheduleChanges)
      .set({ remindedAt: input.now })
      .where(
        and(
          eq(scheduleChanges.orderId, input.orderId),
          eq(scheduleChanges.changeId, input.changeId),
          eq(scheduleChanges.status, 'pending'),
          sql`${scheduleChanges.remindedAt} is null`,
        ),
      )
      .returning();
    if (!row) return false;
    await showOnOrder(tx, row, 'order.schedule_changed');
    return true;
  });
}

/**
 * Ends a change: its status and who resolved it, the order's legs as the airline now has
 * them (an accepted change), and `order.schedule_change_resolved`, in one transaction. A
 * change already resolved is left as it is, and its event is not written again.
 */
export async function resolveScheduleChange(
  db: DbOrTx,
  input: {
    orderId: number;
    changeId: string;
    status: 'accepted' | 'cancelled' | 'changed';
    resolvedBy: 'partner' | 'default' | 'change';
    legs?: Leg[];
    now: Date;
  },
): Promise<ScheduleChangeRow> {
  return db.transaction(async (tx) => {
    await tx.select({ id: orders.id }).from(orders).where(eq(orders.id, input.orderId)).for('update');
    const [row] = await tx
      .update(scheduleChanges)
      .set({ status: input.status, resolvedBy: input.resolvedBy, resolvedAt: input.now })
      .where(and(eq(scheduleChanges.orderId, input.orderId), eq(scheduleChanges.changeId, input.changeId), eq(scheduleChanges.status, 'pending')))
      .returning();
    if (!row) {
      const [done] = await tx
        .select()
        .from(scheduleChanges)
        .where(and(eq(scheduleChanges.orderId, input.orderId), eq(scheduleChanges.changeId, input.changeId)));
      if (!done) throw notFound(`schedule change ${input.changeId} of order ${input.orderId}`);
      return done;
    }
    if (input.legs?.length) {
      const departure = firstDeparture(input.legs);
      await tx
        .update(flightBookings)
        .set({ legs: input.legs, ...(departure ? { departureAt: departure } : {}), updatedAt: input.now })
        .where(eq(flightBookings.orderId, input.orderId));
    }
    await showOnOrder(tx, row, 'order.schedule_change_resolved');
    return row;
  });
}

/** The change of this partner's order still waiting for a decision (the oldest, if the airline made several), or a 400 saying there is none. */
export async function pendingScheduleChange(db: DbOrTx, orderId: number): Promise<ScheduleChangeRow> {
  const [row] = await db
    .select()
    .from(scheduleChanges)
    .where(and(eq(scheduleChanges.orderId, orderId), eq(scheduleChanges.status, 'pending')))
    .orderBy(asc(scheduleChanges.id))
    .limit(1);
  if (!row) throw new DomainError('validation', `order_id: no schedule change of order ${orderId} waits for a decision`, 'order_id');
  return row;
}

/** Whether the engine already knows this change of this order. */
export async function knownScheduleChange(db: DbOrTx, orderId: number, changeId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: scheduleChanges.id })
    .from(scheduleChanges)
    .where(and(eq(scheduleChanges.orderId, orderId), eq(scheduleChanges.changeId, changeId)));
  return row !== undefined;
}

/** `admin schedule-changes`: every change still waiting for a decision, the nearest deadline first (at most `limit`). */
export async function openScheduleChanges(db: DbOrTx, limit = 100): Promise<ScheduleChangeRow[]> {
  return db.select().from(scheduleChanges).where(eq(scheduleChanges.status, 'pending')).orderBy(asc(scheduleChanges.decideBy)).limit(limit);
}

/** The changes of an order, oldest first (admin order inspect; the operators' tools find their workflows by them). */
export async function scheduleChangesOfOrder(db: DbOrTx, orderId: number): Promise<ScheduleChangeRow[]> {
  return db.select().from(scheduleChanges).where(eq(scheduleChanges.orderId, orderId)).orderBy(asc(scheduleChanges.id));
}

/**
 * The issued flight orders still to fly, with the supplier that holds each and its id
 * there: what the poll asks about (a page of `limit` after order `after`).
 */
export async function ordersToFly(db: DbOrTx, now: Date, after: number, limit: number) {
  return db
    .select({
      orderId: orders.id,
      partnerId: orders.partnerId,
      supplier: flightBookings.supplier,
      supplierOrderId: flightBookings.supplierBookingRef,
      pnr: flightBookings.pnr,
    })
    .from(flightBookings)
    .innerJoin(orders, eq(orders.id, flightBookings.orderId))
    .where(
      and(eq(orders.status, 'completed'), eq(flightBookings.status, 'ticketed'), sql`${flightBookings.departureAt} > ${now}`, sql`${orders.id} > ${after}`),
    )
    .orderBy(asc(orders.id))
    .limit(limit);
}
