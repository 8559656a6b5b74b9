/**
 * The airline's fare list: pure functions of the itinerary, cabin, fare family, passengers,
 * travel dates and today's date. Every factor is an integer percentage and each product is
 * rounded once, so a price never depends on floating-point order of operations.
 */
import { AIRLINES, type Cabin } from './inventory';
import { isDomesticLeg, type Leg } from './schedule';
import { applyPercents } from '../percents';

export const FARE_FAMILIES = ['Saver', 'Standard', 'Flex', 'Premium', 'Business', 'First'] as const;
export type FareFamily = (typeof FARE_FAMILIES)[number];

export const PASSENGER_TYPES = ['ADT', 'CHD', 'INF'] as const;
export type PassengerType = (typeof PASSENGER_TYPES)[number];

export interface Passengers {
  adults: number;
  children: number;
  infants: number;
}

export interface Allowance {
  pieces: number;
  weight_kg: number;
}

interface FamilyRules {
  cabin: Cabin;
  booking_class: string;
  /** Fare against the cabin's lowest family, in percent. */
  percent: number;
  refundable: boolean;
  /** Penalties in percent of the booking's base fares (taxes are always refunded). */
  refund_percent: number;
  change_percent: number;
  no_show_percent: number;
  /** Checked baggage for adults and children (infants: INFANT_BAGGAGE). */
  checked: Allowance;
  cabin_bag: Allowance;
}

export const FAMILIES: Record<FareFamily, FamilyRules> = {
  Saver: {
    cabin: 'economy',
    booking_class: 'V',
    percent: 100,
    refundable: false,
    refund_percent: 100,
    change_percent: 25,
    no_show_percent: 100,
    checked: { pieces: 1, weight_kg: 20 },
    cabin_bag: { pieces: 1, weight_kg: 7 },
  },
  Standard: {
    cabin: 'economy',
    booking_class: 'M',
    percent: 120,
    refundable: true,
    refund_percent: 30,
    change_percent: 10,
    no_show_percent: 40,
    checked: { pieces: 1, weight_kg: 30 },
    cabin_bag: { pieces: 1, weight_kg: 7 },
  },
  Flex: {
    cabin: 'economy',
    booking_class: 'Y',
    percent: 140,
    refundable: true,
    refund_percent: 10,
    change_percent: 0,
    no_show_percent: 20,
    checked: { pieces: 2, weight_kg: 23 },
    cabin_bag: { pieces: 1, weight_kg: 7 },
  },
  Premium: {
    cabin: 'premium_economy',
    booking_class: 'W',
    percent: 100,
    refundable: true,
    refund_percent: 20,
    change_percent: 5,
    no_show_percent: 30,
    checked: { pieces: 2, weight_kg: 23 },
    cabin_bag: { pieces: 1, weight_kg: 10 },
  },
  Business: {
    cabin: 'business',
    booking_class: 'J',
    percent: 100,
    refundable: true,
    refund_percent: 5,
    change_percent: 0,
    no_show_percent: 10,
    checked: { pieces: 2, weight_kg: 32 },
    cabin_bag: { pieces: 2, weight_kg: 7 },
  },
  First: {
    cabin: 'first',
    booking_class: 'F',
    percent: 100,
    refundable: true,
    refund_percent: 0,
    change_percent: 0,
    no_show_percent: 0,
    checked: { pieces: 3, weight_kg: 32 },
    cabin_bag: { pieces: 2, weight_kg: 7 },
  },
};

const INFANT_BAGGAGE = { checked: { pieces: 1, weight_kg: 10 }, cabin_bag: { pieces: 0, weight_kg: 0 } };

export function familiesOf(cabin: Cabin): FareFamily[] {
  return FARE_FAMILIES.filter((f) => FAMILIES[f].cabin === cabin);
}

const CABIN_PERCENT: Record<Cabin, number> = { economy: 100, premium_economy: 160, business: 300, first: 600 };
const PASSENGER_PERCENT: Record<PassengerType, number> = { ADT: 100, CHD: 75, INF: 10 };
/** A one-stop itinerary costs this share of its two flights' fares. */
const CONNECTION_PERCENT = 80;
/** Tax: a share of the fare plus an airport fee per segment (Toman ×100 = minor units). */
const TAX_PERCENT: Record<PassengerType, number> = { ADT: 12, CHD: 12, INF: 5 };
const DOMESTIC_FEE_MINOR = 50_000 * 100;
const INTERNATIONAL_FEE_MINOR = 300_000 * 100;
const INFANT_FEE_MINOR = 10_000 * 100;

/** The economy fare of an itinerary per adult before date factors: the route fare at the carrier's level; 80% of both for a connection. */
export function legBaseMinor(leg: Leg): number {
  const sum = leg.reduce((acc, s) => acc + applyPercents(s.flight.route.base_fare_minor, [AIRLINES[s.flight.airline].price_percent]), 0);
  return leg.length > 1 ? applyPercents(sum, [CONNECTION_PERCENT]) : sum;
}

const DAY_MS = 86_400_000;

/** Weekend (Thu/Fri at home, Fri/Sat abroad) +10%, departure within 7 days of today +25%. */
export function datePercents(date: string, domestic: boolean, today: string): [weekend: number, lastMinute: number] {
  const ms = Date.parse(`${date}T00:00:00.000Z`);
  const day = new Date(ms).getUTCDay();
  const weekend = domestic ? day === 4 || day === 5 : day === 5 || day === 6;
  const daysAhead = Math.round((ms - Date.parse(`${today}T00:00:00.000Z`)) / DAY_MS);
  return [weekend ? 110 : 100, daysAhead < 7 ? 125 : 100];
}

export interface PriceLine {
  passenger_type: PassengerType;
  count: number;
  /** Per passenger. */
  base_minor: number;
  /** Per passenger. */
  tax_minor: number;
}

export interface Quote {
  price_breakdown: PriceLine[];
  /** Σ count × (base + tax). */
  total_price_minor: number;
  /** Σ count × base: what refund and change penalties are a share of. */
  base_total_minor: number;
}

export function passengerCount(p: Passengers, type: PassengerType): number {
  return type === 'ADT' ? p.adults : type === 'CHD' ? p.children : p.infants;
}

export function quote(legs: Leg[], cabin: Cabin, family: FareFamily, passengers: Passengers, today: string): Quote {
  const lines: PriceLine[] = [];
  for (const type of PASSENGER_TYPES) {
    const count = passengerCount(passengers, type);
    if (count === 0) continue;
    let base = 0;
    let tax = 0;
    for (const leg of legs) {
      const [weekend, lastMinute] = datePercents(leg[0]?.date ?? today, isDomesticLeg(leg), today);
      const legBase = applyPercents(legBaseMinor(leg), [CABIN_PERCENT[cabin], FAMILIES[family].percent, weekend, lastMinute, PASSENGER_PERCENT[type]]);
      const fees = leg.reduce((acc, s) => acc + (type === 'INF' ? INFANT_FEE_MINOR : s.flight.domestic ? DOMESTIC_FEE_MINOR : INTERNATIONAL_FEE_MINOR), 0);
      base += legBase;
      tax += applyPercents(legBase, [TAX_PERCENT[type]]) + fees;
    }
    lines.push({ passenger_type: type, count, base_minor: base, tax_minor: tax });
  }
  return {
    price_breakdown: lines,
    total_price_minor: lines.reduce((acc, l) => acc + l.count * (l.base_minor + l.tax_minor), 0),
    base_total_minor: lines.reduce((acc, l) => acc + l.count * l.base_minor, 0),
  };
}

/** The price_changed sandbox scenario: the airline now asks 5% more. */
export function changedPrice(minor: number): number {
  return applyPercents(minor, [105]);
}

export interface Penalties {
  refund_minor: number;
  change_minor: number;
  no_show_minor: number;
}

export function penalties(family: FareFamily, baseTotalMinor: number): Penalties {
  const rules = FAMILIES[family];
  return {
    refund_minor: applyPercents(baseTotalMinor, [rules.refund_percent]),
    change_minor: applyPercents(baseTotalMinor, [rules.change_percent]),
    no_show_minor: applyPercents(baseTotalMinor, [rules.no_show_percent]),
  };
}

export function baggageAllowance(family: FareFamily, passengers: Passengers) {
  const rules = FAMILIES[family];
  return PASSENGER_TYPES.filter((t) => passengerCount(passengers, t) > 0).map((passenger_type) => {
    const allowance = passenger_type === 'INF' ? INFANT_BAGGAGE : { checked: rules.checked, cabin_bag: rules.cabin_bag };
    return { passenger_type, checked: allowance.checked, cabin: allowance.cabin_bag };
  });
}

/** `amount` split in proportion to `weights` (whole minor units; the last takes what rounding leaves). */
function splitBy(amount: number, weights: number[]): number[] {
  const sum = weights.reduce((a, w) => a + w, 0);
  let given = 0;
  return weights.map((w, i) => {
    if (i === weights.length - 1) return amount - given;
    const share = sum === 0 ? 0 : Number((BigInt(amount) * BigInt(w)) / BigInt(sum));
    given += share;
    return share;
  });
}

/**
 * A booking's total and base fares split over its legs, in proportion to each leg's own
 * fare on the day it was priced: what a change of one leg gives back. (A quote is the sum
 * of its legs' quotes, so without a price change the shares are the legs' own fares.)
 */
export function legFares(legs: Leg[], cabin: Cabin, family: FareFamily, passengers: Passengers, pricedOn: string, total: number, base: number) {
  const quotes = legs.map((leg) => quote([leg], cabin, family, passengers, pricedOn));
  const totals = splitBy(
    total,
    quotes.map((q) => q.total_price_minor),
  );
  const bases = splitBy(
    base,
    quotes.map((q) => q.base_total_minor),
  );
  return legs.map((_, i) => ({ total_minor: totals[i]!, base_minor: bases[i]! }));
}
