import { z } from 'zod';
import { isKnownCurrency, MAX_AMOUNT_MINOR } from '../platform/currency';
import type { ConfirmingSupplier, SupplierConfirmation } from './confirmations';
import { SupplierUnavailableError } from './errors';
import type * as A from './flight-after-sale';
import type * as F from './flights';
import type * as H from './hotels';
import type { Money } from './money';
import { stayTerms } from './stay-terms';
import type { Fulfilment, ProductSupplier } from './products';

/**
 * What a supplier answers is checked against its port here, whichever adapter made it: an
 * answer that breaks the port's contract (a fractional or negative amount, a currency the
 * engine does not know, amounts of one answer in two currencies, a missing field) is never
 * priced, booked or recorded. It is a SupplierAnswerError: transient, so the step is retried
 * within its bounds, and then an operator sees it, as with a supplier that does not answer.
 */
export class SupplierAnswerError extends SupplierUnavailableError {
  constructor(call: string, issue: string) {
    super(`the supplier's answer to ${call} does not keep its contract: ${issue}`);
    this.name = 'SupplierAnswerError';
  }
}

const obj = z.looseObject;
const text = z.string().min(1);
const instant = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'not a date-time');
const minor = z.number().int().min(0).max(MAX_AMOUNT_MINOR);
const count = z.number().int().min(0);

const money = obj({
  amount_minor: minor,
  currency: z.string().refine(isKnownCurrency, 'not a currency the engine knows'),
}) satisfies z.ZodType<Money>;

/** Every amount of one answer is in one currency. */
function oneCurrency(amounts: Array<Money | null | undefined>, ctx: z.RefinementCtx): void {
  const currencies = new Set(amounts.filter((m): m is Money => !!m).map((m) => m.currency));
  if (currencies.size > 1) ctx.addIssue({ code: 'custom', message: `amounts in more than one currency (${[...currencies].join(', ')})` });
}

const occupancy = obj({ adults: count, children_ages: z.array(count) });
const stay = { ...stayTerms, rooms: z.array(occupancy) };
const policyStep = obj({ from: instant, penalty: money });
const rate = obj({
  rate_id: text,
  room_code: z.string(),
  room_name: z.string(),
  board: z.string(),
  refundable: z.boolean(),
  total: money,
  rooms: count,
  max_occupancy: count,
}) satisfies z.ZodType<H.SupplierRate>;
const hotel = obj({
  hotel_id: z.number().int(),
  name: z.string(),
  stars: z.number(),
  city_id: z.number().int(),
  address: z.string(),
  domestic: z.boolean(),
  rates: z.array(rate),
}) satisfies z.ZodType<H.SupplierHotel>;
const rateQuote = obj({
  ...stay,
  rate_id: text,
  nationality: z.string(),
  total: money,
  searched_total: money.nullable(),
  cancellation_timeline: z.array(policyStep),
  expires_at: instant,
}).superRefine((q, ctx) => oneCurrency([q.total, q.searched_total, ...q.cancellation_timeline.map((s) => s.penalty)], ctx)) satisfies z.ZodType<H.RateQuote>;
const stayHold = obj({
  ...stay,
  hold_id: text,
  status: z.enum(['held', 'booked', 'released', 'expired', 'cancelled']),
  expires_at: instant,
  total: money,
  cancellation_timeline: z.array(policyStep),
  booking_reference: z.string().nullable(),
}).superRefine((h, ctx) => oneCurrency([h.total, ...h.cancellation_timeline.map((s) => s.penalty)], ctx)) satisfies z.ZodType<H.StayHold>;
const city = obj({ id: z.number().int(), name: z.string(), iata_code: z.string(), country: z.string(), domestic: z.boolean() });
const hotelDetail = obj({
  hotel_id: z.number().int(),
  name: z.string(),
  stars: z.number(),
  city_id: z.number().int(),
  city: z.string().nullable(),
  address: z.string(),
  domestic: z.boolean(),
  rooms: z.array(obj({ room_code: z.string(), room_name: z.string(), max_occupancy: count })),
  amenities: z.array(z.string()),
  policies: z.record(z.string(), z.string()),
}) satisfies z.ZodType<H.SupplierHotelDetail>;

const cabin = z.enum(['economy', 'premium_economy', 'business', 'first']);
const passengerType = z.enum(['ADT', 'CHD', 'INF']);
const segment = obj({
  flight_number: z.string(),
  airline: z.string(),
  airline_name: z.string(),
  origin: z.string(),
  destination: z.string(),
  departure: z.string(),
  arrival: z.string(),
  cabin,
  booking_class: z.string(),
});
const legs = z.array(obj({ segments: z.array(segment) }));
const offer = obj({
  offer_id: text,
  total: money,
  expires_at: instant.nullable(),
  refundable: z.boolean(),
  fare_family: z.string(),
  cabin,
  legs,
  price_breakdown: z.array(obj({ passenger_type: passengerType, count, base_minor: minor, tax_minor: minor })),
  seats_left: count.nullable(),
}) satisfies z.ZodType<F.Offer>;
const pricedOffer = obj({
  available: z.boolean(),
  offer_id: text,
  total: money,
  searched_total: money.nullable(),
  expires_at: instant.nullable(),
  seats_left: count.nullable(),
  legs,
  passengers: obj({ adults: count, children: count, infants: count }),
  identity_documents_required: z.boolean(),
}).superRefine((o, ctx) => oneCurrency([o.total, o.searched_total], ctx)) satisfies z.ZodType<F.PricedOffer>;
const condition = obj({ allowed: z.boolean(), penalty: money.nullable() });
const conditions = obj({
  fare_family: z.string(),
  refund_before_departure: condition,
  change_before_departure: condition,
  rules: z.array(obj({ category: z.string(), allowed: z.boolean(), penalty: money.nullable(), text: z.string() })),
}) satisfies z.ZodType<F.FareConditions>;
const allowance = obj({ pieces: count, weight_kg: z.number().min(0).nullable() });
const baggage = obj({ baggage: z.array(obj({ passenger_type: passengerType, checked: allowance, cabin: allowance })) }) satisfies z.ZodType<F.Baggage>;
const flightOrder = obj({
  order_id: text,
  booking_reference: z.string().nullable(),
  status: z.enum(['held', 'paid', 'issued', 'cancelled', 'expired', 'refunded']),
  payment_required_by: instant,
  total: money,
  fare_family: z.string(),
  refundable: z.boolean(),
  refund_penalty: money.nullable(),
  cabin,
  legs,
  tickets: z.array(obj({ traveler_index: count, ticket_number: z.string() })),
  services: z
    .array(
      obj({
        service_id: text,
        type: z.enum(['seat', 'baggage']),
        traveler_index: count,
        segments: z.array(z.tuple([count, count])),
        quantity: z.number().int().min(1),
        total: money,
        designator: z.string().optional(),
      }),
    )
    .optional(),
})
  // An airline may state its refund penalty in a currency of its own; what the order costs is in one.
  .superRefine((o, ctx) => oneCurrency([o.total, ...(o.services ?? []).map((s) => s.total)], ctx)) satisfies z.ZodType<F.FlightOrder>;
const airport = obj({ code: z.string(), name: z.string(), city: z.string(), country: z.string(), city_code: z.string() });
const cancellationQuote = obj({ quote_id: text, order_id: text, refund: money, expires_at: instant.nullable() }) satisfies z.ZodType<F.CancellationQuote>;
const confirmedCancellation = obj({ order_id: text, refund: money, confirmed_at: instant }) satisfies z.ZodType<F.ConfirmedCancellation>;

/** An amount that may be negative: a change's total, refunded when below zero. */
const signedMoney = obj({
  amount_minor: z.number().int().min(-MAX_AMOUNT_MINOR).max(MAX_AMOUNT_MINOR),
  currency: money.shape.currency,
}) satisfies z.ZodType<Money>;
const changePrices = { change_total: signedMoney, penalty: money, new_total: money, expires_at: instant };
const changeOffer = obj({
  change_offer_id: text,
  order_id: text,
  ...changePrices,
  remove: z.array(count),
  add: legs,
  change_id: text.nullable(),
}).superRefine((o, ctx) => oneCurrency([o.change_total, o.penalty, o.new_total], ctx)) satisfies z.ZodType<A.ChangeOffer>;
const changeRequest = obj({
  request_id: text,
  order_id: text,
  offers: z.array(changeOffer),
}).superRefine((r, ctx) =>
  oneCurrency(
    r.offers.flatMap((o) => [o.change_total, o.penalty, o.new_total]),
    ctx,
  ),
) satisfies z.ZodType<A.ChangeRequest>;
const orderChange = obj({
  change_id: text,
  change_offer_id: text,
  order_id: text,
  ...changePrices,
  confirmed_at: instant.nullable(),
}).superRefine((c, ctx) => oneCurrency([c.change_total, c.penalty, c.new_total], ctx)) satisfies z.ZodType<A.OrderChange>;
const scheduleChange = obj({
  change_id: text,
  order_id: text,
  removed: legs,
  added: legs,
  available_actions: z.array(z.enum(['accept', 'cancel', 'change', 'update'])),
  action_taken: z.enum(['accepted', 'cancelled', 'changed']).nullable(),
  action_taken_at: instant.nullable(),
  created_at: instant,
}) satisfies z.ZodType<A.ScheduleChange>;
const seat = obj({
  designator: text,
  prices: z.array(obj({ service_id: text, traveler_index: count, price: money })),
  disclosures: z.array(z.string()),
}) satisfies z.ZodType<A.Seat>;
const seatMaps = z
  .array(
    obj({
      leg_index: count,
      segment_index: count,
      cabins: z.array(obj({ cabin, rows: z.array(obj({ seats: z.array(seat) })) })),
    }),
  )
  .superRefine((maps, ctx) =>
    oneCurrency(
      maps.flatMap((m) => m.cabins.flatMap((c) => c.rows.flatMap((r) => r.seats.flatMap((s) => s.prices.map((p) => p.price))))),
      ctx,
    ),
  ) satisfies z.ZodType<A.SeatMap[]>;
const servicesForSale = z
  .array(
    obj({
      service_id: text,
      type: z.literal('baggage'),
      price: money,
      max_quantity: z.number().int().min(1),
      traveler_indexes: z.array(count),
      segments: z.array(z.tuple([count, count])),
      bag: obj({ kind: z.enum(['checked', 'carry_on']), max_weight_kg: z.number().min(0).nullable() }),
    }),
  )
  .superRefine((services, ctx) =>
    oneCurrency(
      services.map((s) => s.price),
      ctx,
    ),
  ) satisfies z.ZodType<A.ServiceForSale[]>;

const fulfilment = obj({ fulfilment_id: text, status: z.string(), client_reference: z.string() }) satisfies z.ZodType<Fulfilment>;
const confirmation = obj({
  reference: text,
  client_reference: z.string(),
  status: z.enum(['confirmed', 'cancelled']),
  current: z.record(z.string(), z.unknown()).optional(),
}) satisfies z.ZodType<SupplierConfirmation>;

/** The answer if it keeps `schema`, else a SupplierAnswerError naming the call and the first field that breaks it. */
export function checkedAnswer<T>(call: string, schema: z.ZodType<T>, answer: unknown): T {
  const parsed = schema.safeParse(answer);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new SupplierAnswerError(call, `${issue.path.join('.') || '(the answer)'}: ${issue.message}`);
}

/** `port[method]` with its answer checked against `schema`. */
function checked<A extends unknown[], T>(call: string, schema: z.ZodType<T>, method: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
  return async (...args) => checkedAnswer(call, schema, await method(...args));
}

const orNull = <T>(schema: z.ZodType<T>) => schema.nullable();

export function checkedHotelSupplier(port: H.HotelSupplier): H.HotelSupplier {
  const call = (method: string) => `${port.name} hotels.${method}`;
  return {
    name: port.name,
    requiresPhone: port.requiresPhone,
    cities: checked(call('cities'), z.array(city), () => port.cities()),
    hotel: checked(call('hotel'), hotelDetail, (id) => port.hotel(id)),
    search: checked(call('search'), obj({ search_id: z.string(), hotels: z.array(hotel) }), (req) => port.search(req)),
    checkRate: checked(call('checkRate'), rateQuote, (id) => port.checkRate(id)),
    hold: checked(call('hold'), stayHold, (req) => port.hold(req)),
    addGuests: checked(call('addGuests'), stayHold, (id, guests, contact) => port.addGuests(id, guests, contact)),
    book: checked(call('book'), stayHold, (id, req) => port.book(id, req)),
    retrieve: checked(call('retrieve'), stayHold, (id) => port.retrieve(id)),
    release: checked(call('release'), stayHold, (id) => port.release(id)),
    cancel: checked(call('cancel'), obj({ status: z.literal('cancelled'), refund: money.nullable() }), (ref, req) => port.cancel(ref, req)),
  };
}

export function checkedFlightSupplier(port: F.FlightSupplier): F.FlightSupplier {
  const call = (method: string) => `${port.name} flights.${method}`;
  return {
    name: port.name,
    airports: checked(call('airports'), z.array(airport), () => port.airports()),
    search: checked(call('search'), obj({ search_id: z.string(), offers: z.array(offer) }), (req) => port.search(req)),
    price: checked(call('price'), pricedOffer, (id) => port.price(id)),
    conditions: checked(call('conditions'), conditions, (id) => port.conditions(id)),
    baggage: checked(call('baggage'), baggage, (id) => port.baggage(id)),
    hold: checked(call('hold'), flightOrder, (req) => port.hold(req)),
    issue: checked(call('issue'), flightOrder, (id, req) => port.issue(id, req)),
    order: checked(call('order'), flightOrder, (id) => port.order(id)),
    release: checked(call('release'), flightOrder, (id) => port.release(id)),
    quoteCancellation: checked(call('quoteCancellation'), cancellationQuote, (id) => port.quoteCancellation(id)),
    confirmCancellation: checked(call('confirmCancellation'), confirmedCancellation, (quote, req) => port.confirmCancellation(quote, req)),
  };
}

/**
 * The after-sale port with its answers checked, as `checkedFlightSupplier` checks the
 * flights port's: a change's total may be negative (a refund), every other amount not; the
 * amounts of one change, one list of seat maps or of services are in one currency.
 */
export function checkedFlightAfterSale(port: A.FlightAfterSale & { readonly name: string }): A.FlightAfterSale & { readonly name: string } {
  const call = (method: string) => `${port.name} flights.${method}`;
  return {
    name: port.name,
    requestChange: checked(call('requestChange'), changeRequest, (id, req) => port.requestChange(id, req)),
    changeOffer: checked(call('changeOffer'), changeOffer, (id) => port.changeOffer(id)),
    createChange: checked(call('createChange'), orderChange, (id) => port.createChange(id)),
    findChange: checked(call('findChange'), orNull(orderChange), (id) => port.findChange(id)),
    confirmChange: checked(call('confirmChange'), orderChange, (id, req) => port.confirmChange(id, req)),
    change: checked(call('change'), orderChange, (id) => port.change(id)),
    scheduleChanges: checked(call('scheduleChanges'), z.array(scheduleChange), (id) => port.scheduleChanges(id)),
    acceptScheduleChange: checked(call('acceptScheduleChange'), scheduleChange, (id) => port.acceptScheduleChange(id)),
    seatMaps: checked(call('seatMaps'), seatMaps, (id) => port.seatMaps(id)),
    offerServices: checked(call('offerServices'), servicesForSale, (id) => port.offerServices(id)),
    orderServices: checked(call('orderServices'), servicesForSale, (id) => port.orderServices(id)),
    addServices: checked(call('addServices'), flightOrder, (id, req) => port.addServices(id, req)),
  };
}

export function checkedProductSupplier(port: ProductSupplier): ProductSupplier {
  return {
    fulfil: checked('products.fulfil', fulfilment, (req) => port.fulfil(req)),
    lookup: checked('products.lookup', orNull(fulfilment), (ref, scenario) => port.lookup(ref, scenario)),
  };
}

export function checkedConfirmingSupplier(name: string, port: ConfirmingSupplier): ConfirmingSupplier {
  const call = (method: string) => `${name}.${method}`;
  return {
    confirm: checked(call('confirm'), confirmation, (ref, request, scenario) => port.confirm(ref, request, scenario)),
    amend: checked(call('amend'), confirmation, (ref, change, scenario) => port.amend(ref, change, scenario)),
    cancel: checked(call('cancel'), confirmation, (ref, scenario) => port.cancel(ref, scenario)),
    lookup: checked(call('lookup'), orNull(confirmation), (ref, scenario) => port.lookup(ref, scenario)),
    read: checked(call('read'), orNull(confirmation), (ref, scenario) => port.read(ref, scenario)),
  };
}
