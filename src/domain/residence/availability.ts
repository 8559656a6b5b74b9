import { and, eq, gt, inArray, lt, notExists, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../db/client';
import { ACTIVE_RESERVATION_STATUSES, properties, propertyBlocks, reservations } from '../../db/schema';
import { validation } from '../errors';
import { isStorableId } from '../ids';

export type PropertyRow = typeof properties.$inferSelect;

/** Host blocks of `propertyId` overlapping [from, to). */
const blockOverlaps = (propertyId: number | SQL | typeof properties.id, from: string, to: string) =>
  and(eq(propertyBlocks.propertyId, propertyId), lt(propertyBlocks.startDate, to), gt(propertyBlocks.endDate, from));

/** Active reservations of `propertyId` overlapping [from, to). */
const reservationOverlaps = (propertyId: number | SQL | typeof properties.id, from: string, to: string, exceptReservation?: number) => {
  const conditions: SQL[] = [
    eq(reservations.propertyId, propertyId),
    inArray(reservations.status, ACTIVE_RESERVATION_STATUSES),
    lt(reservations.checkIn, to),
    gt(reservations.checkOut, from),
  ];
  if (exceptReservation !== undefined) conditions.push(sql`${reservations.id} <> ${exceptReservation}`);
  return and(...conditions);
};

/** Dates taken: host blocks and active reservations, as [start, end) ranges. */
export async function takenRanges(db: DbOrTx, propertyId: number, from: string, to: string, exceptReservation?: number) {
  const blocks = await db
    .select({ start: propertyBlocks.startDate, end: propertyBlocks.endDate })
    .from(propertyBlocks)
    .where(blockOverlaps(propertyId, from, to));
  const booked = await db
    .select({ start: reservations.checkIn, end: reservations.checkOut })
    .from(reservations)
    .where(reservationOverlaps(propertyId, from, to, exceptReservation));
  return [...blocks.map((b) => ({ ...b, reason: 'blocked' as const })), ...booked.map((b) => ({ ...b, reason: 'booked' as const }))];
}

/**
 * A filter on `properties`: free for all of [from, to) (no host block, no active
 * reservation overlaps), the same test as `takenRanges` finding nothing, in the query itself.
 */
export function freeBetween(db: DbOrTx, from: string, to: string): SQL {
  return and(
    notExists(
      db
        .select({ one: sql`1` })
        .from(propertyBlocks)
        .where(blockOverlaps(properties.id, from, to)),
    ),
    notExists(
      db
        .select({ one: sql`1` })
        .from(reservations)
        .where(reservationOverlaps(properties.id, from, to)),
    ),
  )!;
}

/** Locks the property row: date holds and changes of one property serialise here. */
export async function lockProperty(tx: Tx, propertyId: number): Promise<PropertyRow> {
  const [p] = isStorableId(propertyId) ? await tx.select().from(properties).where(eq(properties.id, propertyId)).for('update') : [];
  if (!p) throw validation('property_id', `no property ${propertyId}`);
  return p;
}

/** Refuses dates that are taken (a stay being changed ignores its own). */
export async function assertFree(tx: Tx, propertyId: number, checkIn: string, checkOut: string, exceptReservation?: number) {
  const taken = await takenRanges(tx, propertyId, checkIn, checkOut, exceptReservation);
  if (taken.length) {
    const t = taken[0]!;
    throw validation('check_in', `the property is ${t.reason} from ${t.start} to ${t.end}`);
  }
}
