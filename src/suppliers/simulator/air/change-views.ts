/** How the airline answers after the sale: change offers, changes and its own schedule changes, as JSON. */
import { CURRENCY } from '../requests';
import type { AirlineChange } from './bookings';
import type { ChangeOfferRecord, OrderChangeRecord } from './changes';
import type { Cabin } from './inventory';
import type { FareFamily } from './pricing';
import { legsView } from './views';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function changeOfferView(o: ChangeOfferRecord, cabin: Cabin, family: FareFamily) {
  return {
    change_offer_id: o.id,
    request_id: o.request_id,
    pnr: o.pnr,
    remove: o.remove,
    add: legsView(o.add, cabin, family),
    change_total_minor: o.change_total_minor,
    penalty_minor: o.penalty_minor,
    new_total_minor: o.new_total_minor,
    currency: CURRENCY,
    expires_at: iso(o.expires_ms),
    change_id: o.change?.id ?? null,
  };
}

export function orderChangeView(c: OrderChangeRecord) {
  const o = c.offer;
  return {
    change_id: c.id,
    change_offer_id: o.id,
    pnr: o.pnr,
    change_total_minor: o.change_total_minor,
    penalty_minor: o.penalty_minor,
    new_total_minor: o.new_total_minor,
    currency: CURRENCY,
    expires_at: iso(o.expires_ms),
    confirmed_at: iso(c.confirmed_ms),
  };
}

/** While it is open the booking may take it, be cancelled (refunded in full) or be changed. */
export function airlineChangeView(a: AirlineChange, cabin: Cabin, family: FareFamily) {
  return {
    id: a.id,
    pnr: a.pnr,
    leg_index: a.leg_index,
    removed: legsView([a.removed], cabin, family),
    added: legsView([a.added], cabin, family),
    available_actions: a.action_taken === null ? ['accept', 'cancel', 'change'] : [],
    action_taken: a.action_taken,
    action_taken_at: iso(a.action_taken_ms),
    created_at: iso(a.created_ms)!,
  };
}
