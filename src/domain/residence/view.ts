import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { orders, properties } from '../../db/schema';
import type { OrderRow } from '../orders';
import type { PropertyRow } from './availability';
import { priceStay } from './pricing';
import type { ReservationRow } from './reservations';

/** A reservation with what reading it needs: its property, the nights it spans, and its order once booked. */
export interface ReservationView {
  reservation: ReservationRow;
  property: PropertyRow;
  nights: number;
  order: OrderRow | null;
}

export async function viewReservation(db: DbOrTx, r: ReservationRow): Promise<ReservationView> {
  const [p] = await db.select().from(properties).where(eq(properties.id, r.propertyId));
  const [order] = r.orderId === null ? [] : await db.select().from(orders).where(eq(orders.id, r.orderId));
  return { reservation: r, property: p!, nights: priceStay(p!, r.checkIn, r.checkOut).nights, order: order ?? null };
}
