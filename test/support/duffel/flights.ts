/// <reference types="@duffel/api" />
import type {
  AddServices,
  Airport,
  CabinClass,
  CreateOfferRequest,
  CreateOrder,
  CreateOrderCancellation,
  CreatePayment,
  FlightsConditions,
  Offer,
  OfferAvailableService,
  OfferPassenger,
  OfferRequest,
  OfferSlice,
  OfferSliceSegment,
  Order,
  OrderCancellation,
  OrderDocument,
  OrderService,
  OrderSlice,
  PassengerType,
  Payment,
  Place,
  SeatMap,
} from '@duffel/api/types';
import { z } from 'zod';
import { seededRandom } from '../../../scripts/seeded-random';
import type { Account } from './account';
import { offerBags, offerServicesById, orderBags, seatMapsOf } from './catalog';
import { invalidState, linkedNotFound, notFound, offerNoLongerAvailable, StandInError, validation } from './errors';
import { newId, newLocator, paginate, parseBody, type Page } from './http';
import { formatMinor, fromGbp, parseMinor } from './money';
import { isoDate, isoDuration, localIso, utcOfLocal } from './time';
import { AIRCRAFT, airportByCode, cityByCode, distanceKm, DUFFEL_AIRWAYS, routeCurrency } from './world';

/**
 * Duffel's order request as the reference documents it: `type` is `instant` or `hold`
 * (the SDK's own type names the second `pay_later`; the API reference and the hold guide say `hold`).
 */
export type CreateOrderRequest = Omit<CreateOrder, 'type'> & { type: 'instant' | 'hold' };

/** An order cancellation as the reference documents it: `confirmed_at` is null until confirmed. */
export type StandInOrderCancellation = Omit<OrderCancellation, 'confirmed_at'> & { confirmed_at: string | null };

/** A payment as the stand-in records it: Duffel's payment and the order it paid. */
export type RecordedPayment = Payment & { order_id: string };

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD');
const iata = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter IATA code');
const timeRange = z.object({ from: z.string().regex(/^\d{2}:\d{2}$/), to: z.string().regex(/^\d{2}:\d{2}$/) });
const name = z.string().min(1).max(60).optional();

const offerRequestSchema: z.ZodType<CreateOfferRequest> = z.object({
  slices: z
    .array(
      z.object({
        origin: iata,
        destination: iata,
        departure_date: date,
        departure_time: timeRange.nullable().default(null),
        arrival_time: timeRange.nullable().default(null),
      }),
    )
    .min(1)
    .max(4),
  passengers: z
    .array(
      z.union([
        z.object({ type: z.literal('adult'), given_name: name, family_name: name }),
        z.object({ age: z.number().int().min(0).max(130), given_name: name, family_name: name }),
      ]),
    )
    .min(1)
    .max(9),
  cabin_class: z.enum(['first', 'business', 'premium_economy', 'economy']).optional(),
  max_connections: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
});

const identityDocument = z.object({
  type: z.enum(['passport', 'tax_id']),
  unique_identifier: z.string().min(1),
  issuing_country_code: z.string().regex(/^[A-Z]{2}$/),
  expires_on: date,
});

const orderSchema: z.ZodType<CreateOrderRequest> = z.object({
  type: z.enum(['instant', 'hold']),
  selected_offers: z.array(z.string().startsWith('off_')).length(1),
  passengers: z
    .array(
      z.object({
        id: z.string().startsWith('pas_'),
        given_name: z.string().min(1).max(60),
        family_name: z.string().min(1).max(60),
        born_on: date,
        gender: z.enum(['m', 'f']),
        title: z.enum(['mr', 'ms', 'mrs', 'miss', 'dr']),
        email: z.email(),
        phone_number: z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be in E.164 format'),
        infant_passenger_id: z.string().nullable().optional(),
        identity_documents: z.array(identityDocument).optional(),
      }),
    )
    .min(1),
  payments: z.array(z.object({ type: z.enum(['balance', 'arc_bsp_cash']), amount: z.string(), currency: z.string().regex(/^[A-Z]{3}$/) })).optional(),
  services: z.array(z.object({ id: z.string(), quantity: z.number().int().min(1) })).optional(),
  metadata: z
    .record(z.string().max(40), z.string().max(500))
    .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys')
    .optional(),
});

const paymentSchema: z.ZodType<CreatePayment> = z.object({
  order_id: z.string().startsWith('ord_'),
  payment: z.object({ type: z.enum(['balance', 'arc_bsp_cash']), amount: z.string(), currency: z.string().regex(/^[A-Z]{3}$/) }),
});

const cancellationSchema: z.ZodType<CreateOrderCancellation> = z.object({ order_id: z.string().startsWith('ord_') });

const addServicesSchema: z.ZodType<AddServices> = z.object({
  add_services: z.array(z.object({ id: z.string(), quantity: z.number().int().min(1) })).min(1),
  payment: z.object({ type: z.enum(['balance', 'arc_bsp_cash']), amount: z.string(), currency: z.string().regex(/^[A-Z]{3}$/) }),
});

/** What can be done to an order through the API: a paid order whose fare allows it can be changed. */
export function actionsOf(order: Order): Order['available_actions'] {
  if (order.cancelled_at) return [];
  const changeable = order.payment_status.paid_at !== null && order.conditions.change_before_departure?.allowed === true;
  return changeable ? ['cancel', 'change', 'update'] : ['cancel', 'update'];
}

/** An offer's slice as an order has it; `passengerId` renames the offer's passengers as the order's. */
export function orderSliceOf(s: OfferSlice, passengerId: (offerPassengerId: string) => string = (id) => id): OrderSlice {
  return {
    id: s.id,
    origin: s.origin,
    destination: s.destination,
    origin_type: s.origin_type,
    destination_type: s.destination_type,
    duration: s.duration,
    fare_brand_name: s.fare_brand_name,
    conditions: { change_before_departure: s.conditions.change_before_departure },
    segments: s.segments.map((seg) => ({
      ...seg,
      origin_terminal: seg.origin_terminal ?? '',
      destination_terminal: seg.destination_terminal ?? '',
      duration: seg.duration ?? '',
      distance: seg.distance ?? '',
      stops: [],
      passengers: seg.passengers.map((p) => ({
        passenger_id: passengerId(p.passenger_id),
        cabin_class: p.cabin_class,
        cabin_class_marketing_name: p.cabin_class_marketing_name,
        baggages: p.baggages,
      })),
    })),
  };
}

/**
 * What DUFFEL_STAND_IN_SALT says, put before every search's key: another salt draws other
 * flights and prices for the same searches, as the same tests run on another day would (their
 * dates are days from today). Unset, nothing is put before the key.
 */
const SALT = process.env.DUFFEL_STAND_IN_SALT ?? '';

/** A deterministic number stream from a string: the same search gets the same flights and prices. */
function seeded(key: string): () => number {
  const salted = SALT + key;
  let h = 2166136261;
  for (let i = 0; i < salted.length; i++) h = Math.imul(h ^ salted.charCodeAt(i), 16777619);
  return seededRandom(h >>> 0);
}

/** The fares Duffel Airways sells on every route, cheapest first. */
const FARES = [
  { brand: 'Basic', factor: 1, checked: 0, refund: null, change: null, departs: 7 * 60 + 35 },
  { brand: 'Standard', factor: 1.3, checked: 1, refund: 4000, change: 4000, departs: 13 * 60 + 10 },
  { brand: 'Flex', factor: 1.7, checked: 2, refund: 0, change: 0, departs: 19 * 60 + 45 },
] as const;

const CABIN_FACTOR: Record<CabinClass, number> = { economy: 1, premium_economy: 1.6, business: 3.2, first: 5 };
const CABIN_NAME: Record<CabinClass, string> = {
  economy: 'Economy',
  premium_economy: 'Premium Economy',
  business: 'Business',
  first: 'First',
};
/** Per passenger type, in percent of an adult fare. */
const TYPE_PERCENT: Record<PassengerType, number> = { adult: 100, child: 75, infant_without_seat: 10 };

const passengerType = (age: number | null): PassengerType => (age === null || age >= 12 ? 'adult' : age >= 2 ? 'child' : 'infant_without_seat');

interface OfferRecord {
  offer: Offer;
  offerRequestId: string;
  totalMinor: number;
  taxMinor: number;
  /** Added to the price at the next read of the offer (a fetch or an order). */
  pendingRaiseMinor: number;
  gone: boolean;
  orderId?: string;
}

export interface OrderRecord {
  order: Order;
  offerId: string;
  cancellationIds: string[];
  /** What the flights cost, without services: what a change reprices. */
  fareMinor: number;
}

export interface FlightsOptions {
  now: () => Date;
  account: Account;
  /** How long an offer lives after its search (Duffel: about 30 minutes). */
  offerTtlSeconds: number;
  /** How long a hold order may wait for its payment. */
  holdSeconds: number;
  /** How long the price of a hold is guaranteed. */
  priceGuaranteeSeconds: number;
  /** How long an order cancellation quote can be confirmed. */
  cancellationTtlSeconds: number;
}

/** An airline's refusal of the next payment, armed by a test. */
interface PaymentRefusal {
  orderId?: string;
  code: string;
  message: string;
}

/** Duffel's flights: offer requests, offers, orders, payments and order cancellations, in memory. */
export class Flights {
  private readonly offerRequests = new Map<string, OfferRequest>();
  private readonly offers = new Map<string, OfferRecord>();
  private readonly orders = new Map<string, OrderRecord>();
  private readonly cancellations = new Map<string, StandInOrderCancellation>();
  readonly payments: RecordedPayment[] = [];
  private refusals: PaymentRefusal[] = [];
  /** Raises and removals armed for "the next offer read", whichever it is. */
  private nextRaiseMinor: { amount: string } | null = null;
  private nextGone = false;
  /** Seats booked or taken meanwhile, as `segment_id|designator`. */
  readonly takenSeats = new Set<string>();

  constructor(private readonly opts: FlightsOptions) {}

  private nowIso(): string {
    return this.opts.now().toISOString();
  }

  // ---- offer requests and offers ----

  private place(code: string, pointer: string): { place: Place; airport: Airport } {
    const airport = airportByCode(code);
    if (airport) return { place: airport, airport };
    const city = cityByCode(code);
    if (city?.airports?.[0]) return { place: city, airport: city.airports[0] };
    throw validation('validation_format', pointer.split('/').pop()!, pointer, `'${code}' is not an airport or city Duffel knows`);
  }

  /** The offer request, with its offers inlined unless `return_offers=false` (then they are listed by `GET /air/offers`). */
  createOfferRequest(data: unknown, returnOffers: boolean): OfferRequest | Omit<OfferRequest, 'offers'> {
    const body = parseBody(offerRequestSchema, data);
    const today = isoDate(this.opts.now());
    const cabin: CabinClass = body.cabin_class ?? 'economy';
    const slices = body.slices.map((s, i) => {
      const origin = this.place(s.origin, `/slices/${i}/origin`);
      const destination = this.place(s.destination, `/slices/${i}/destination`);
      if (origin.airport.iata_city_code === destination.airport.iata_city_code) {
        throw validation('validation_format', 'destination', `/slices/${i}/destination`, 'The destination must differ from the origin');
      }
      if (s.departure_date < today) {
        throw validation('validation_format', 'departure_date', `/slices/${i}/departure_date`, 'departure_date must be today or later');
      }
      return { ...s, origin, destination };
    });
    const passengers: OfferPassenger[] = body.passengers.map((p) => {
      const age = 'age' in p && typeof p.age === 'number' ? p.age : null;
      return {
        id: newId('pas'),
        age,
        type: passengerType(age),
        fare_type: null,
        given_name: p.given_name,
        family_name: p.family_name,
        loyalty_programme_accounts: [],
      };
    });
    const adults = passengers.filter((p) => p.type === 'adult').length;
    const infants = passengers.filter((p) => p.type === 'infant_without_seat').length;
    if (adults === 0 || infants > adults) {
      throw validation('validation_format', 'passengers', '/passengers', 'Each infant must travel with an adult, and at least one adult must travel');
    }

    const id = newId('orq');
    const createdAt = this.nowIso();
    const request: OfferRequest = {
      id,
      live_mode: false,
      created_at: createdAt,
      cabin_class: cabin,
      passengers: passengers.map(({ id: pid, age, type, given_name, family_name }) => ({
        id: pid,
        age: age ?? undefined,
        type: type ?? undefined,
        given_name,
        family_name,
      })),
      slices: slices.map((s) => ({
        origin: s.origin.place,
        destination: s.destination.place,
        origin_type: s.origin.place.type,
        destination_type: s.destination.place.type,
        departure_date: s.departure_date,
      })),
      offers: [],
    };
    const key = `${slices.map((s) => `${s.origin.airport.iata_code}-${s.destination.airport.iata_code}@${s.departure_date}`).join('/')}|${cabin}|${passengers
      .map((p) => p.type)
      .join(',')}`;
    const offers = FARES.map((fare, fareIndex) => this.buildOffer(id, key, fareIndex, fare, cabin, slices, passengers));
    this.offerRequests.set(id, { ...request, offers });
    if (!returnOffers) {
      const { offers: _none, ...withoutOffers } = request;
      return withoutOffers;
    }
    return { ...request, offers };
  }

  private buildOffer(
    offerRequestId: string,
    key: string,
    fareIndex: number,
    fare: (typeof FARES)[number],
    cabin: CabinClass,
    slices: { origin: { place: Place; airport: Airport }; destination: { place: Place; airport: Airport }; departure_date: string }[],
    passengers: OfferPassenger[],
  ): Omit<Offer, 'available_services'> {
    const random = seeded(`${key}#${fareIndex}`);
    const currency = routeCurrency(slices[0]!.origin.airport, slices[0]!.destination.airport);
    const createdAt = this.opts.now();
    let adultGbp = 0;
    let international = false;
    let emissionsKg = 0;
    let firstDeparture = Infinity;
    const offerSlices: OfferSlice[] = slices.map((s, sliceIndex) => {
      const from = s.origin.airport;
      const to = s.destination.airport;
      international ||= from.iata_country_code !== to.iata_country_code;
      const km = Math.round(distanceKm(from, to));
      const minutes = Math.round(((km / 800) * 60) / 5) * 5 + 30;
      adultGbp += (35 + km * 0.07) * CABIN_FACTOR[cabin] * fare.factor * (0.9 + random() * 0.2);
      emissionsKg += Math.round(km * 0.09) * passengers.length;
      const departs = utcOfLocal(s.departure_date, fare.departs + Math.floor(random() * 6) * 5, from.time_zone);
      firstDeparture = Math.min(firstDeparture, departs);
      const arrives = departs + minutes * 60_000;
      const flightNumber = String(100 + Math.floor(random() * 8900));
      const segmentId = newId('seg');
      const segment: OfferSliceSegment = {
        id: segmentId,
        aircraft: AIRCRAFT[km > 3000 ? 1 : 0]!,
        origin: from,
        destination: to,
        origin_terminal: String(1 + (sliceIndex % 2)),
        destination_terminal: String(1 + ((sliceIndex + 1) % 2)),
        departing_at: localIso(departs, from.time_zone),
        arriving_at: localIso(arrives, to.time_zone),
        duration: isoDuration(minutes),
        distance: String(km),
        marketing_carrier: DUFFEL_AIRWAYS,
        marketing_carrier_flight_number: flightNumber,
        operating_carrier: DUFFEL_AIRWAYS,
        operating_carrier_flight_number: flightNumber,
        stops: [],
        passengers: passengers.map((p) => ({
          passenger_id: p.id,
          cabin_class: cabin,
          cabin_class_marketing_name: CABIN_NAME[cabin],
          fare_basis_code: `${fare.brand[0]}${cabin[0]!.toUpperCase()}ZZ${fareIndex}`,
          cabin: null,
          baggages:
            p.type === 'infant_without_seat'
              ? [{ type: 'checked', quantity: fare.checked > 0 ? 1 : 0 }]
              : [
                  { type: 'checked', quantity: fare.checked },
                  { type: 'carry_on', quantity: 1 },
                ],
        })),
      };
      return {
        id: newId('sli'),
        origin: s.origin.place,
        destination: s.destination.place,
        origin_type: s.origin.place.type,
        destination_type: s.destination.place.type,
        duration: isoDuration(minutes),
        fare_brand_name: fare.brand,
        segments: [segment],
        conditions: {
          ...this.conditions(fare, currency, passengers.length),
          advance_seat_selection: fare.brand !== 'Basic',
          priority_boarding: fare.brand === 'Flex',
          priority_check_in: fare.brand === 'Flex',
        },
        ngs_shelf: fareIndex + 1,
        comparison_key: `${from.iata_code}${to.iata_code}${s.departure_date}${flightNumber}`,
      };
    });
    const perAdultMinor = fromGbp(adultGbp, currency);
    const totalMinor = passengers.reduce((sum, p) => sum + Math.round((perAdultMinor * TYPE_PERCENT[p.type ?? 'adult']) / 100), 0);
    const taxMinor = Math.round(totalMinor * 0.18);
    const expiresAt = new Date(createdAt.getTime() + this.opts.offerTtlSeconds * 1000);
    const payBy = Math.max(createdAt.getTime() + 60_000, Math.min(createdAt.getTime() + this.opts.holdSeconds * 1000, firstDeparture - 2 * 3600_000));
    const guaranteeUntil = Math.min(payBy, createdAt.getTime() + this.opts.priceGuaranteeSeconds * 1000);
    const offer: Omit<Offer, 'available_services'> = {
      id: newId('off'),
      live_mode: false,
      created_at: createdAt.toISOString(),
      updated_at: createdAt.toISOString(),
      expires_at: expiresAt.toISOString(),
      owner: DUFFEL_AIRWAYS,
      partial: false,
      private_fares: [],
      passengers,
      slices: offerSlices,
      conditions: this.conditions(fare, currency, passengers.length),
      passenger_identity_documents_required: international,
      supported_passenger_identity_document_types: international ? ['passport'] : [],
      supported_loyalty_programmes: [],
      payment_requirements: {
        requires_instant_payment: false,
        payment_required_by: new Date(payBy).toISOString(),
        price_guarantee_expires_at: new Date(guaranteeUntil).toISOString(),
      },
      total_amount: formatMinor(totalMinor, currency),
      total_currency: currency,
      base_amount: formatMinor(totalMinor - taxMinor, currency),
      base_currency: currency,
      tax_amount: formatMinor(taxMinor, currency),
      tax_currency: currency,
      total_emissions_kg: String(emissionsKg),
    };
    this.offers.set(offer.id, { offer: { ...offer, available_services: [] }, offerRequestId, totalMinor, taxMinor, pendingRaiseMinor: 0, gone: false });
    return offer;
  }

  private conditions(fare: (typeof FARES)[number], currency: string, passengers: number): FlightsConditions {
    const penalty = (gbpMinor: number | null) =>
      gbpMinor === null
        ? ({ allowed: false, penalty_amount: null, penalty_currency: null } as const)
        : ({ allowed: true, penalty_amount: formatMinor(fromGbp((gbpMinor / 100) * passengers, currency), currency), penalty_currency: currency } as const);
    return { refund_before_departure: penalty(fare.refund), change_before_departure: penalty(fare.change) };
  }

  /** The offer as a read finds it now: raised if a raise was armed, refused if gone or expired. */
  private readOffer(id: string, field?: string): OfferRecord {
    const record = this.offers.get(id);
    if (!record) throw field ? linkedNotFound(field) : notFound();
    if (this.nextGone) {
      this.nextGone = false;
      record.gone = true;
    }
    if (record.gone || record.orderId || Date.parse(record.offer.expires_at) <= this.opts.now().getTime()) {
      throw offerNoLongerAvailable();
    }
    const currency = record.offer.total_currency;
    if (this.nextRaiseMinor) {
      record.pendingRaiseMinor += parseMinor(this.nextRaiseMinor.amount, currency) ?? 0;
      this.nextRaiseMinor = null;
    }
    if (record.pendingRaiseMinor > 0) {
      record.totalMinor += record.pendingRaiseMinor;
      record.taxMinor = Math.round(record.totalMinor * 0.18);
      record.pendingRaiseMinor = 0;
      record.offer = {
        ...record.offer,
        updated_at: this.nowIso(),
        total_amount: formatMinor(record.totalMinor, currency),
        base_amount: formatMinor(record.totalMinor - record.taxMinor, currency),
        tax_amount: formatMinor(record.taxMinor, currency),
      };
    }
    return record;
  }

  /** The offer; its `available_services` (bags) only when asked for, as Duffel lists them. */
  getOffer(id: string, withServices = false): Offer {
    const record = this.readOffer(id);
    const services: OfferAvailableService[] = withServices ? offerBags(record.offer) : [];
    return { ...record.offer, available_services: services };
  }

  /** The seat maps of a live offer, one per segment (none for a fare without seat selection). */
  seatMaps(query: Record<string, string>): SeatMap[] {
    const offerId = query.offer_id;
    if (!offerId) throw validation('validation_required', 'offer_id', '/offer_id', "Field 'offer_id' can't be blank");
    return seatMapsOf(this.readOffer(offerId, 'offer_id').offer, this.takenSeats);
  }

  listOffers(query: Record<string, string>): Page<Offer> {
    const requestId = query.offer_request_id;
    if (!requestId) throw validation('validation_required', 'offer_request_id', '/offer_request_id', "Field 'offer_request_id' can't be blank");
    if (!this.offerRequests.has(requestId)) throw notFound();
    const offers = [...this.offers.values()]
      .filter((r) => r.offerRequestId === requestId)
      .sort((a, b) => a.totalMinor - b.totalMinor)
      .map((r) => r.offer);
    return paginate(offers, query);
  }

  getOfferRequest(id: string): OfferRequest {
    const request = this.offerRequests.get(id);
    if (!request) throw notFound();
    return request;
  }

  // ---- orders ----

  createOrder(data: unknown): Order {
    const body = parseBody(orderSchema, data);
    const offerId = body.selected_offers[0]!;
    const record = this.readOffer(offerId, 'selected_offers');
    const offer = record.offer;
    const expected = new Set(offer.passengers.map((p) => p.id));
    body.passengers.forEach((p, i) => {
      if (!expected.delete(p.id)) throw linkedNotFound('id', `/passengers/${i}/id`);
      if (offer.passenger_identity_documents_required && !p.identity_documents?.length) {
        throw validation(
          'validation_required',
          'identity_documents',
          `/passengers/${i}/identity_documents`,
          'The airline requires an identity document for each passenger on this offer',
        );
      }
    });
    if (expected.size > 0) {
      throw validation('validation_required', 'passengers', '/passengers', `Every passenger of the offer must be given; missing ${[...expected].join(', ')}`);
    }
    const currency = offer.total_currency;
    const id = newId('ord');
    const now = this.nowIso();
    if (body.type === 'hold' && body.services?.length) {
      throw validation('validation_format', 'services', '/services', 'Services cannot be booked with a hold order; create an instant order to book them');
    }
    const services = this.chosenServices(
      offer,
      body.services ?? [],
      body.passengers.map((p) => p.id),
    );
    const totalMinor = record.totalMinor + services.reduce((sum, s) => sum + parseMinor(s.total_amount, currency)!, 0);
    if (body.type === 'instant') {
      const payment = body.payments?.[0];
      if (!payment) throw validation('validation_required', 'payments', '/payments', 'An instant order must be paid when it is created');
      this.checkAmount(payment.amount, payment.currency, formatMinor(totalMinor, currency), currency, '/payments/0');
      this.opts.account.debit(currency, totalMinor, id, 'order_payment');
    } else if (body.payments?.length) {
      throw validation('validation_format', 'payments', '/payments', 'A hold order is created without payments');
    }
    for (const s of services) if (s.type === 'seat') this.takenSeats.add(`${s.segment_ids[0]}|${(s.metadata as { designator: string }).designator}`);
    const types = new Map(offer.passengers.map((p) => [p.id, p.type ?? 'adult']));
    const slices = offer.slices.map((s) => orderSliceOf(s));
    const order: Order = {
      id,
      live_mode: false,
      created_at: now,
      synced_at: now,
      booking_reference: newLocator(),
      owner: offer.owner,
      content: 'self_managed',
      total_amount: formatMinor(totalMinor, currency),
      total_currency: currency,
      base_amount: offer.base_amount,
      base_currency: currency,
      tax_amount: offer.tax_amount ?? undefined,
      tax_currency: currency,
      slices,
      services,
      conditions: offer.conditions,
      passengers: body.passengers.map((p) => ({
        id: p.id,
        type: types.get(p.id)!,
        given_name: p.given_name,
        family_name: p.family_name,
        born_on: p.born_on,
        gender: p.gender,
        title: p.title,
        email: p.email,
        phone_number: p.phone_number,
        infant_passenger_id: p.infant_passenger_id ?? null,
        loyalty_programme_accounts: [],
      })),
      payment_status:
        body.type === 'instant'
          ? { awaiting_payment: false, paid_at: now }
          : {
              awaiting_payment: true,
              paid_at: null,
              payment_required_by: offer.payment_requirements.payment_required_by ?? undefined,
              price_guarantee_expires_at: offer.payment_requirements.price_guarantee_expires_at ?? undefined,
            },
      documents: body.type === 'instant' ? this.tickets(body.passengers.map((p) => p.id)) : [],
      metadata: body.metadata ?? {},
      airline_initiated_changes: [],
      available_actions: [],
      cancelled_at: null,
      cancellation: null,
    };
    order.available_actions = actionsOf(order);
    record.orderId = id;
    this.orders.set(id, { order, offerId, cancellationIds: [], fareMinor: record.totalMinor });
    if (body.type === 'instant') {
      this.payments.push({ id: newId('pay'), order_id: id, amount: order.total_amount, currency, type: 'balance', created_at: now });
    }
    return order;
  }

  /** The services chosen for an order, as the order lists them: each one the offer sells, within its quantity, one seat per passenger and segment. */
  private chosenServices(offer: Offer, chosen: Array<{ id: string; quantity: number }>, passengerIds: string[]): OrderService[] {
    if (chosen.length === 0) return [];
    const forSale = offerServicesById(offer, this.takenSeats);
    const seated = new Set<string>();
    return chosen.map((c, i) => {
      const service = forSale.get(c.id);
      if (!service) throw linkedNotFound('id', `/services/${i}/id`);
      if (c.quantity > service.maximum_quantity) {
        throw validation('validation_format', 'quantity', `/services/${i}/quantity`, `At most ${service.maximum_quantity} of this service can be booked`);
      }
      if (!service.passenger_ids.every((p) => passengerIds.includes(p))) throw linkedNotFound('id', `/services/${i}/id`);
      if (service.type === 'seat') {
        const key = `${service.passenger_ids[0]}|${service.segment_ids[0]}`;
        if (seated.has(key)) throw validation('validation_format', 'id', `/services/${i}/id`, 'A passenger can have one seat per segment');
        seated.add(key);
      }
      return {
        id: service.id,
        type: service.type,
        passenger_ids: service.passenger_ids,
        segment_ids: service.segment_ids,
        quantity: c.quantity,
        total_amount: formatMinor(service.total_minor * c.quantity, service.currency),
        total_currency: service.currency,
        metadata: service.metadata,
      };
    });
  }

  /** Refuses a payment that is not the amount due in its currency. */
  checkAmount(amount: string, currency: string | null | undefined, expectedAmount: string, expectedCurrency: string, pointer: string): void {
    if (currency !== expectedCurrency) {
      throw validation('validation_format', 'currency', `${pointer}/currency`, `The payment currency must be the order's, ${expectedCurrency}`);
    }
    const minor = parseMinor(amount, expectedCurrency);
    if (minor === null) throw validation('validation_format', 'amount', `${pointer}/amount`, `'${amount}' is not an amount in ${expectedCurrency}`);
    if (minor !== parseMinor(expectedAmount, expectedCurrency)) {
      throw invalidState(
        'price_changed',
        'Price changed',
        `The price has changed to ${expectedAmount} ${expectedCurrency}; retrieve the order and pay its current total_amount.`,
      );
    }
  }

  /** New electronic tickets, one per passenger. */
  tickets(passengerIds: string[]): OrderDocument[] {
    return passengerIds.map((pid) => ({
      type: 'electronic_ticket',
      passenger_ids: [pid],
      unique_identifier: `0${String(Math.floor(1e11 + Math.random() * 9e11))}${passengerIds.indexOf(pid)}`,
    }));
  }

  /** The order as it stands now: an unpaid hold past its deadline is cancelled by the airline. */
  currentOrder(id: string, field?: string): OrderRecord {
    const record = this.orders.get(id);
    if (!record) throw field ? linkedNotFound(field) : notFound();
    const { order } = record;
    const deadline = order.payment_status.payment_required_by;
    if (order.payment_status.awaiting_payment && !order.cancelled_at && deadline && Date.parse(deadline) <= this.opts.now().getTime()) {
      record.order = { ...order, cancelled_at: deadline, available_actions: [], payment_status: { ...order.payment_status, awaiting_payment: false } };
    }
    return record;
  }

  getOrder(id: string): Order {
    return this.currentOrder(id).order;
  }

  listOrders(query: Record<string, string>): Page<Order> {
    let orders = [...this.orders.keys()].map((id) => this.currentOrder(id).order);
    if (query.booking_reference) orders = orders.filter((o) => o.booking_reference === query.booking_reference);
    if (query.awaiting_payment) orders = orders.filter((o) => String(o.payment_status.awaiting_payment) === query.awaiting_payment);
    return paginate(orders, query);
  }

  // ---- payments ----

  pay(data: unknown): Payment {
    const body = parseBody(paymentSchema, data);
    const record = this.currentOrder(body.order_id, 'order_id');
    const { order } = record;
    if (order.cancelled_at) {
      throw invalidState('already_cancelled', 'Order already cancelled', 'The order has been cancelled and can no longer be paid.');
    }
    if (!order.payment_status.awaiting_payment) {
      throw invalidState('already_paid', 'Order already paid', 'The order has already been paid for.');
    }
    this.checkAmount(body.payment.amount, body.payment.currency, order.total_amount, order.total_currency, '/payment');
    const refusal = this.refusals.findIndex((r) => r.orderId === undefined || r.orderId === order.id);
    if (refusal >= 0) {
      const [r] = this.refusals.splice(refusal, 1);
      throw new StandInError(422, 'airline_error', r!.code, 'Airline error', r!.message);
    }
    const minor = parseMinor(order.total_amount, order.total_currency)!;
    this.opts.account.debit(order.total_currency, minor, order.id, 'order_payment');
    const now = this.nowIso();
    const payment: Payment = { id: newId('pay'), amount: order.total_amount, currency: order.total_currency, type: body.payment.type, created_at: now };
    const paid: Order = {
      ...order,
      synced_at: now,
      payment_status: { ...order.payment_status, awaiting_payment: false, paid_at: now },
      documents: this.tickets(order.passengers.map((p) => p.id)),
    };
    record.order = { ...paid, available_actions: actionsOf(paid) };
    this.payments.push({ ...payment, order_id: order.id });
    return payment;
  }

  // ---- services after booking ----

  /** The bags an issued order may still add (none for an unpaid or cancelled order). */
  availableServices(orderId: string): OfferAvailableService[] {
    const { order } = this.currentOrder(orderId);
    if (order.cancelled_at || !order.payment_status.paid_at) return [];
    return orderBags(order);
  }

  /** Adds bags to an issued order, paid from the balance: the order's services and total grow. */
  addServices(orderId: string, data: unknown): Order {
    const body = parseBody(addServicesSchema, data);
    const record = this.currentOrder(orderId);
    const { order } = record;
    if (order.cancelled_at) throw invalidState('already_cancelled', 'Order already cancelled', 'The order has been cancelled.');
    if (!order.payment_status.paid_at) {
      throw invalidState('order_not_paid', 'Order not paid', 'Services can be added to an order once it has been paid for.');
    }
    const forSale = new Map(orderBags(order).map((b) => [b.id, b]));
    const currency = order.total_currency;
    let sumMinor = 0;
    const added: OrderService[] = body.add_services.map((c, i) => {
      const bag = forSale.get(c.id);
      if (!bag) throw linkedNotFound('id', `/add_services/${i}/id`);
      if (c.quantity > bag.maximum_quantity) {
        throw validation('validation_format', 'quantity', `/add_services/${i}/quantity`, `At most ${bag.maximum_quantity} of this service can be added`);
      }
      const minor = parseMinor(bag.total_amount, currency)! * c.quantity;
      sumMinor += minor;
      return {
        id: bag.id,
        type: 'baggage',
        passenger_ids: bag.passenger_ids,
        segment_ids: bag.segment_ids,
        quantity: c.quantity,
        total_amount: formatMinor(minor, currency),
        total_currency: currency,
        metadata: bag.metadata,
      };
    });
    this.checkAmount(body.payment.amount, body.payment.currency, formatMinor(sumMinor, currency), currency, '/payment');
    this.opts.account.debit(currency, sumMinor, order.id, 'order_payment');
    const now = this.nowIso();
    record.order = {
      ...order,
      synced_at: now,
      services: [...order.services, ...added],
      total_amount: formatMinor(parseMinor(order.total_amount, currency)! + sumMinor, currency),
    };
    this.payments.push({ id: newId('pay'), order_id: order.id, amount: formatMinor(sumMinor, currency), currency, type: body.payment.type, created_at: now });
    return record.order;
  }

  /** A seat sold to someone else meanwhile: it is no longer for sale. */
  takeSeat(segmentId: string, designator: string): void {
    this.takenSeats.add(`${segmentId}|${designator}`);
  }

  // ---- order cancellations ----

  createCancellation(data: unknown): StandInOrderCancellation {
    const body = parseBody(cancellationSchema, data);
    const record = this.currentOrder(body.order_id, 'order_id');
    const { order } = record;
    if (order.cancelled_at) throw invalidState('already_cancelled', 'Order already cancelled', 'The order has already been cancelled.');
    const currency = order.total_currency;
    const paid = order.payment_status.paid_at !== null;
    const refund = order.conditions.refund_before_departure;
    const totalMinor = parseMinor(order.total_amount, currency)!;
    const refundMinor = !paid || !refund?.allowed ? 0 : Math.max(0, totalMinor - (parseMinor(refund.penalty_amount ?? '0', currency) ?? 0));
    const cancellation: StandInOrderCancellation = {
      id: newId('ore'),
      order_id: order.id,
      live_mode: false,
      created_at: this.nowIso(),
      expires_at: new Date(this.opts.now().getTime() + this.opts.cancellationTtlSeconds * 1000).toISOString(),
      confirmed_at: null,
      refund_amount: formatMinor(refundMinor, currency),
      refund_currency: currency,
      refund_to: paid ? 'balance' : 'awaiting_payment',
      airline_credits: [],
    };
    this.cancellations.set(cancellation.id, cancellation);
    record.cancellationIds.push(cancellation.id);
    return cancellation;
  }

  confirmCancellation(id: string): StandInOrderCancellation {
    const cancellation = this.cancellations.get(id);
    if (!cancellation) throw notFound();
    const record = this.currentOrder(cancellation.order_id);
    if (cancellation.confirmed_at || record.order.cancelled_at) {
      throw invalidState('already_cancelled', 'Order already cancelled', 'The order has already been cancelled.');
    }
    if (Date.parse(cancellation.expires_at) <= this.opts.now().getTime()) {
      throw invalidState('order_cancellation_expired', 'Order cancellation expired', 'This order cancellation quote has expired; request a new one.');
    }
    const now = this.nowIso();
    const confirmed: StandInOrderCancellation = { ...cancellation, confirmed_at: now };
    this.cancellations.set(id, confirmed);
    const currency = cancellation.refund_currency!;
    const refundMinor = parseMinor(cancellation.refund_amount ?? '0', currency) ?? 0;
    if (cancellation.refund_to === 'balance' && refundMinor > 0) this.opts.account.credit(currency, refundMinor, id, 'order_refund');
    record.order = {
      ...record.order,
      cancelled_at: now,
      synced_at: now,
      available_actions: [],
      cancellation: { ...confirmed, confirmed_at: now },
      payment_status: { ...record.order.payment_status, awaiting_payment: false },
    };
    return confirmed;
  }

  getCancellation(id: string): StandInOrderCancellation {
    const cancellation = this.cancellations.get(id);
    if (!cancellation) throw notFound();
    return cancellation;
  }

  listCancellations(query: Record<string, string>): Page<StandInOrderCancellation> {
    const all = [...this.cancellations.values()].filter((c) => !query.order_id || c.order_id === query.order_id);
    return paginate(all, query);
  }

  // ---- controls ----

  /** Raises an offer's price by `amount` (in its currency) at its next read; `'*'` arms the next offer read, whichever it is. */
  raiseOfferPrice(offerId: string, amount: string): void {
    if (offerId === '*') {
      if (!/^\d+(\.\d+)?$/.test(amount) || Number(amount) <= 0) {
        throw validation('validation_format', 'amount', '/amount', `'${amount}' is not a positive amount`);
      }
      this.nextRaiseMinor = { amount };
      return;
    }
    const record = this.offers.get(offerId);
    if (!record) throw notFound();
    const minor = parseMinor(amount, record.offer.total_currency);
    if (minor === null || minor <= 0)
      throw validation('validation_format', 'amount', '/amount', `'${amount}' is not a positive amount in ${record.offer.total_currency}`);
    record.pendingRaiseMinor += minor;
  }

  /** The airline withdraws an offer; `'*'` withdraws the next offer read. */
  makeOfferGone(offerId: string): void {
    if (offerId === '*') {
      this.nextGone = true;
      return;
    }
    const record = this.offers.get(offerId);
    if (!record) throw notFound();
    record.gone = true;
  }

  expireOffer(offerId: string): void {
    const record = this.offers.get(offerId);
    if (!record) throw notFound();
    record.offer = { ...record.offer, expires_at: new Date(this.opts.now().getTime() - 1000).toISOString() };
  }

  /** Moves a hold's payment deadline to now: the airline cancels it. */
  expireHold(orderId: string): void {
    const record = this.orders.get(orderId);
    if (!record) throw notFound();
    const past = new Date(this.opts.now().getTime() - 1000).toISOString();
    record.order = {
      ...record.order,
      payment_status: { ...record.order.payment_status, payment_required_by: past, price_guarantee_expires_at: past },
    };
  }

  /** The airline reprices an unpaid hold: its total goes up by `amount`. */
  raiseOrderPrice(orderId: string, amount: string): void {
    const record = this.orders.get(orderId);
    if (!record) throw notFound();
    const { order } = record;
    const minor = parseMinor(amount, order.total_currency);
    if (minor === null || minor <= 0)
      throw validation('validation_format', 'amount', '/amount', `'${amount}' is not a positive amount in ${order.total_currency}`);
    const total = parseMinor(order.total_amount, order.total_currency)! + minor;
    record.order = { ...order, total_amount: formatMinor(total, order.total_currency) };
  }

  expireCancellation(id: string): void {
    const cancellation = this.cancellations.get(id);
    if (!cancellation) throw notFound();
    this.cancellations.set(id, { ...cancellation, expires_at: new Date(this.opts.now().getTime() - 1000).toISOString() });
  }

  refuseNextPayment(refusal: { orderId?: string; code?: string; message?: string } = {}): void {
    this.refusals.push({
      orderId: refusal.orderId,
      code: refusal.code ?? 'airline_unknown',
      message: refusal.message ?? 'The airline responded with an unexpected error, please contact support.',
    });
  }

  clearFaults(): void {
    this.refusals = [];
    this.nextRaiseMinor = null;
    this.nextGone = false;
  }

  paymentsOf(orderId?: string): RecordedPayment[] {
    return this.payments.filter((p) => orderId === undefined || p.order_id === orderId);
  }

  orderIds(): string[] {
    return [...this.orders.keys()];
  }
}
