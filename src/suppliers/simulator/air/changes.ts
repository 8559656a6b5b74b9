/**
 * Changes a traveller asks for on a ticketed booking: the offers for flying other flights
 * instead of some legs, each priced with the airline's own fares on today's date, and the
 * changes made from them (one per offer), pending until confirmed.
 */
import { applyPercents } from '../percents';
import { seatKeys, type LegFare, type StoredBooking } from './bookings';
import { cityOf, type Cabin } from './inventory';
import { FAMILIES, legBaseMinor, quote } from './pricing';
import { legArrival, legDeparture, legsFor, type Leg } from './schedule';
import { MIN_LEAD_TIME_MS, MIN_STAY_MS } from './search';
import type { SeatBook } from './seats';

/** At most this many offers answer one change request. */
export const MAX_CHANGE_OFFERS = 3;
/** What the change_penalty scenario charges at least, in percent of the changed legs' base fares: a Saver's. */
export const SCENARIO_CHANGE_PENALTY_PERCENT = FAMILIES.Saver.change_percent;

export interface NewLegRequest {
  origin: string;
  destination: string;
  departure_date: string;
  cabin: Cabin;
}

export interface ChangeOfferRecord {
  id: string;
  request_id: string;
  pnr: string;
  /** The booking's version it was priced on: a booking changed since makes it stale. */
  booking_version: number;
  remove: number[];
  add: Leg[];
  add_fares: LegFare[];
  /** Signed: negative is a refund. */
  change_total_minor: number;
  penalty_minor: number;
  new_total_minor: number;
  new_base_total_minor: number;
  expires_ms: number;
  change: OrderChangeRecord | null;
}

export interface OrderChangeRecord {
  id: string;
  offer: ChangeOfferRecord;
  confirmed_ms: number | null;
}

export interface PricingContext {
  now: number;
  today: string;
  seats: SeatBook;
  expiresMs: number;
  /** The penalty is at least this share of the changed legs' base fares (the change_penalty scenario). */
  minPenaltyPercent: number;
}

/** Whether a leg flies the same flights on the same days as another. */
const sameFlights = (x: Leg, y: Leg) =>
  x.length === y.length && x.every((s, i) => s.flight.flight_number === y[i]?.flight.flight_number && s.date === y[i]?.date);

/** Each leg departs once the one before has landed, with time to stay. */
function inOrder(legs: Leg[]): boolean {
  const sorted = [...legs].sort((x, y) => legDeparture(x) - legDeparture(y));
  return sorted.every((leg, i) => i === 0 || legDeparture(leg) >= legArrival(sorted[i - 1]!) + MIN_STAY_MS);
}

export class ChangeOffers {
  private readonly offers = new Map<string, ChangeOfferRecord>();
  private readonly changes = new Map<string, OrderChangeRecord>();
  private requests = 0;
  private offerSequence = 0;
  private changeSequence = 0;

  /**
   * Up to MAX_CHANGE_OFFERS ways to fly `add` instead of the legs at `remove`: the first
   * flights of the day with seats for the party, priced in the booking's fare family.
   */
  request(b: StoredBooking, remove: number[], add: NewLegRequest[], ctx: PricingContext): { request_id: string; offers: ChangeOfferRecord[] } {
    this.requests += 1;
    const request_id = `ACR-${String(this.requests).padStart(6, '0')}`;
    const removed = remove.map((i) => b.legs[i]!);
    const kept = b.legs.filter((_, i) => !remove.includes(i));
    const candidates = add.map((n) =>
      legsFor(cityOf(n.origin), cityOf(n.destination), n.departure_date, b.cabin, legBaseMinor).filter(
        (leg) =>
          legDeparture(leg) >= ctx.now + MIN_LEAD_TIME_MS &&
          ctx.seats.minAvailable(seatKeys([leg], b.cabin)) >= b.seated &&
          !removed.some((r) => sameFlights(r, leg)),
      ),
    );
    const removedTotal = remove.reduce((a, i) => a + b.leg_fares[i]!.total_minor, 0);
    const removedBase = remove.reduce((a, i) => a + b.leg_fares[i]!.base_minor, 0);
    const penaltyPercent = Math.max(FAMILIES[b.fare_family].change_percent, ctx.minPenaltyPercent);
    const penalty = applyPercents(removedBase, [penaltyPercent]);
    // Seats and bags on the removed legs go with them, unrefunded.
    const dropped = b.services.filter((s) => remove.includes(s.leg_index)).reduce((a, s) => a + s.total_minor, 0);
    const offers: ChangeOfferRecord[] = [];
    const count = Math.min(MAX_CHANGE_OFFERS, ...candidates.map((c) => c.length));
    for (let k = 0; k < count; k++) {
      const legs = candidates.map((c) => c[k]!);
      if (!inOrder([...kept, ...legs])) continue;
      const fares = legs.map((leg) => quote([leg], b.cabin, b.fare_family, b.passengers, ctx.today));
      const addTotal = fares.reduce((a, q) => a + q.total_price_minor, 0);
      const addBase = fares.reduce((a, q) => a + q.base_total_minor, 0);
      this.offerSequence += 1;
      const offer: ChangeOfferRecord = {
        id: `ACO-${String(this.offerSequence).padStart(6, '0')}`,
        request_id,
        pnr: b.pnr,
        booking_version: b.version,
        remove: [...remove],
        add: legs,
        add_fares: fares.map((q) => ({ total_minor: q.total_price_minor, base_minor: q.base_total_minor })),
        change_total_minor: addTotal - removedTotal + penalty,
        penalty_minor: penalty,
        new_total_minor: b.total_price_minor - removedTotal - dropped + addTotal,
        new_base_total_minor: b.base_total_minor - removedBase + addBase,
        expires_ms: ctx.expiresMs,
        change: null,
      };
      this.offers.set(offer.id, offer);
      offers.push(offer);
    }
    return { request_id, offers };
  }

  offer(id: string): ChangeOfferRecord | undefined {
    return this.offers.get(id);
  }

  change(id: string): OrderChangeRecord | undefined {
    return this.changes.get(id);
  }

  /** The change made from the offer: the one made before, if any. */
  create(offer: ChangeOfferRecord): OrderChangeRecord {
    if (offer.change) return offer.change;
    this.changeSequence += 1;
    const change: OrderChangeRecord = { id: `ACH-${String(this.changeSequence).padStart(6, '0')}`, offer, confirmed_ms: null };
    offer.change = change;
    this.changes.set(change.id, change);
    return change;
  }
}
