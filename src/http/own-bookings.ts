import { sql } from 'drizzle-orm';
import type { Context, MiddlewareHandler } from 'hono';
import type { DbOrTx } from '../db/client';
import { isStorableId } from '../domain/ids';
import type { Partner } from '../domain/partners';
import type { ActorRecord } from '../platform/actor';
import { reachedOperation } from './rights';

/** What a request's id names: an order, or a booking an order is made from. */
type Kind = 'order' | 'hotel_booking' | 'tour_prebook' | 'reservation';
/** Where the id is: a field of the JSON body, a query parameter, or a path parameter. */
type Subject = { in: 'body' | 'query' | 'path'; name: string; kind: Kind };

const body = (name: string, kind: Kind): Subject => ({ in: 'body', name, kind });
const path = (name: string, kind: Kind): Subject => ({ in: 'path', name, kind });
const query = (name: string, kind: Kind): Subject => ({ in: 'query', name, kind });
const ORDER_ID = [body('order_id', 'order')];
const RESERVATION = [body('reservation_id', 'reservation')];

/**
 * The operations that read or act on one order or booking, and where its id is: what an
 * agent who sees only their own bookings (docs/decisions/rights.md) is refused for another
 * person's, as if it did not exist. Lists and feeds are narrowed where they are read.
 */
export const ORDER_SUBJECTS: Record<string, readonly Subject[]> = {
  'POST /api/partners/pay/': [body('order_id', 'order'), body('product_order_id', 'order')],
  'GET /api/partners/orders/{id}/documents/': [path('id', 'order')],
  'GET /api/partners/orders/{id}/documents/{file}': [path('id', 'order')],
  'POST /api/hotel/book/': [body('booking_id', 'hotel_booking')],
  'POST /api/hotel/order/': [body('booking_id', 'hotel_booking')],
  'POST /api/hotel/booking_data/': [body('order_id', 'order'), body('booking_id', 'hotel_booking')],
  'POST /api/hotel/cancel_display/': ORDER_ID,
  'POST /api/hotel/cancel/': ORDER_ID,
  'POST /api/flights/air_order_ticket/': ORDER_ID,
  'POST /api/flights/air_booking_data/': ORDER_ID,
  'POST /api/flights/air_refund_display/': ORDER_ID,
  'POST /api/flights/air_refund/': ORDER_ID,
  'POST /api/flights/air_refund_offline/': ORDER_ID,
  'POST /api/flights/air_change_request/': ORDER_ID,
  'POST /api/flights/air_change_confirm/': ORDER_ID,
  'POST /api/flights/air_order_available_services/': ORDER_ID,
  'POST /api/flights/air_order_services/': ORDER_ID,
  'POST /api/flights/air_schedule_change/': ORDER_ID,
  'POST /api/tours/finalize/': [body('prebook_id', 'tour_prebook')],
  'GET /api/visa/requests/{id}/': [path('id', 'order')],
  'GET /api/residence/reserve/time/': [query('reservation_id', 'reservation')],
  'GET /api/residence/reserve/detail/': [query('reservation_id', 'reservation')],
  'POST /api/residence/reserve/book/': RESERVATION,
  'POST /api/residence/bookings/cancel/': RESERVATION,
  'POST /api/residence/bookings/accept-cancel/': RESERVATION,
  'POST /api/residence/bookings/modify/': RESERVATION,
  'DELETE /v1/hotels/bookings/{booking_id}': [path('booking_id', 'hotel_booking')],
  'GET /v1/hotels/bookings/{booking_id}/documents': [path('booking_id', 'hotel_booking')],
  'GET /v1/hotels/bookings/{booking_id}/documents/{file}': [path('booking_id', 'hotel_booking')],
  'GET /v1/products/orders/{order_id}': [path('order_id', 'order')],
  'GET /v1/products/orders/{order_id}/documents': [path('order_id', 'order')],
  'GET /v1/products/orders/{order_id}/documents/{file}': [path('order_id', 'order')],
};

/**
 * Whose the thing `id` of `kind` names is (and that agency's parent), and who made it: the
 * order's maker, or a hold's (the order made from a hold records the same maker);
 * undefined when it names nothing.
 */
async function makerOf(db: DbOrTx, kind: Kind, id: number): Promise<{ partnerId: number; parentId: number | null; createdBy: ActorRecord | null } | undefined> {
  const thing = {
    order: sql`select o.partner_id, o.id as order_id, null::jsonb as created_by from orders o where o.id = ${id}`,
    hotel_booking: sql`select b.partner_id, b.order_id, b.created_by from hotel_bookings b where b.id = ${id}`,
    tour_prebook: sql`select p.partner_id, p.order_id, p.created_by from tour_prebooks p where p.id = ${id}`,
    reservation: sql`select r.partner_id, r.order_id, r.created_by from reservations r where r.id = ${id}`,
  }[kind];
  const via = sql`select t.partner_id, coalesce(o.created_by, t.created_by) as created_by, p.parent_id
    from (${thing}) t join partners p on p.id = t.partner_id left join orders o on o.id = t.order_id`;
  const { rows } = (await db.execute(via)) as unknown as {
    rows: Array<{ partner_id: number; parent_id: number | null; created_by: ActorRecord | null }>;
  };
  const row = rows[0];
  if (!row) return undefined;
  return { partnerId: Number(row.partner_id), parentId: row.parent_id === null ? null : Number(row.parent_id), createdBy: row.created_by };
}

async function idsOf(c: Context, subjects: readonly Subject[], params: Record<string, string>): Promise<Array<{ kind: Kind; id: number }>> {
  const json = subjects.some((s) => s.in === 'body') ? ((await c.req.json().catch(() => null)) as Record<string, unknown> | null) : null;
  const ids: Array<{ kind: Kind; id: number }> = [];
  for (const s of subjects) {
    const raw = s.in === 'body' ? json?.[s.name] : s.in === 'query' ? c.req.query(s.name) : params[s.name];
    const id = typeof raw === 'number' ? raw : typeof raw === 'string' && /^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : NaN;
    if (isStorableId(id)) ids.push({ kind: s.kind, id });
  }
  return ids;
}

/**
 * For an agent who sees only their own bookings: a request about one order, hold or booking
 * made by someone else in the agency or in one of its sub-agencies is answered as not found,
 * in the interface's shape, before anything is read or done. Every other principal, and an id that names
 * nothing of the agency's, go on to the route (which answers for itself).
 */
export function enforceOwnBookings<E extends { Variables: { partner: Partner } }>(
  db: DbOrTx,
  refuse: (c: Context<E>, message: string) => Response,
): MiddlewareHandler<E> {
  return async (c, next) => {
    const partner = c.get('partner');
    const own = partner?.principal.ownBookingsOf ?? null;
    if (own === null) return next();
    const reached = reachedOperation(c);
    const subjects = reached && Object.hasOwn(ORDER_SUBJECTS, reached.operation) ? ORDER_SUBJECTS[reached.operation] : undefined;
    if (!reached || !subjects) return next();
    for (const { kind, id } of await idsOf(c, subjects, reached.params)) {
      const maker = await makerOf(db, kind, id);
      // A sub-agency's bookings, which its parent reads, are made by the sub-agency's people: never this agent's.
      const childs = maker?.parentId === partner.id;
      if (!maker || (maker.partnerId !== partner.id && !childs)) continue;
      const mine = maker.createdBy?.type === 'user' && maker.createdBy.id === own;
      if (childs || !mine) return refuse(c, `${kind.replace('_', ' ')} ${id} not found`);
    }
    return next();
  };
}
