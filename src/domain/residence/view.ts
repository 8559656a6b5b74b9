import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { orders, properties } from '../../db/schema';
import { formatDecimal } from '../money';
import { priceStay } from './pricing';
import type { ReservationRow } from './reservations';

export async function renderReservation(db: DbOrTx, r: ReservationRow, now: Date) {
  const [p] = await db.select().from(properties).where(eq(properties.id, r.propertyId));
  const [order] = r.orderId === null ? [] : await db.select().from(orders).where(eq(orders.id, r.orderId));
  return {
    reservation_id: r.id,
    status: r.status,
    property_id: r.propertyId,
    property_name: p!.name,
    check_in: r.checkIn,
    check_out: r.checkOut,
    nights: priceStay(p!, r.checkIn, r.checkOut).nights,
    guests: r.guests,
    lead_guest: r.leadGuest,
    total_price: formatDecimal(r.totalPrice, r.currency),
    currency: r.currency,
    expires_at: r.expiresAt.toISOString(),
    seconds_left: r.status === 'held' || r.status === 'booked' ? Math.max(0, Math.floor((r.expiresAt.getTime() - now.getTime()) / 1000)) : 0,
    order_id: r.orderId,
    order_status: order?.status ?? null,
    confirmation_number: r.confirmationNumber,
    cancellation_policy: p!.cancellationPolicy,
    cancel_refund: r.cancelRefund === null ? null : formatDecimal(r.cancelRefund, r.currency),
  };
}
