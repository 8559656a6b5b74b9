import { asc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import {
  flightBookings,
  hotelBookings,
  orderItems,
  properties,
  reservations,
  tourDepartures,
  tourPrebooks,
  tours,
  visaApplications,
  visaProducts,
  type OrderService,
} from '../../db/schema';
import type { Baggage } from '../../suppliers/flights';
import { DomainError } from '../errors';
import { formatDecimal } from '../money/money';
import type { OrderRow } from '../orders';
import { dayText } from '../money/statements';
import type { DocumentContent, TravelDocumentKind } from './model';

/** What the suppliers can add that the booking does not keep: a hotel's address and city, a fare's baggage. Null: not known. */
export interface SupplierFacts {
  hotel(supplier: string, hotelId: number): Promise<{ address: string; city: string | null } | null>;
  baggage(supplier: string, fareSourceCode: string): Promise<Baggage | null>;
}

/** The traveller document each service gives, and its title. */
export const TRAVEL_DOCUMENT_OF: Record<OrderService, { kind: TravelDocumentKind; title: string }> = {
  hotel: { kind: 'voucher', title: 'Hotel voucher' },
  flight: { kind: 'itinerary-receipt', title: 'Flight itinerary receipt' },
  tour: { kind: 'voucher', title: 'Tour voucher' },
  residence: { kind: 'voucher', title: 'Villa stay voucher' },
  product: { kind: 'voucher', title: 'Product voucher' },
  visa: { kind: 'visa-receipt', title: 'Visa application receipt' },
};

type Person = { first_name?: unknown; last_name?: unknown; passenger_type?: unknown };
const nameOf = (p: unknown) => {
  const x = (p ?? {}) as Person;
  return [x.first_name, x.last_name].filter((s): s is string => typeof s === 'string' && s.length > 0).join(' ') || '(name erased)';
};
const TRAVELLER_TYPE: Record<string, string> = { ADT: 'Adult', CHD: 'Child', INF: 'Infant' };
const typeOf = (p: unknown) => TRAVELLER_TYPE[String((p as Person | null)?.passenger_type)] ?? '';
const moment = (iso: string) => `${dayText(iso.slice(0, 10))} ${iso.slice(11, 16)}`;

/** Why a booking's traveller document cannot be had yet (null: it can). */
export type Availability = { available: true } | { available: false; reason: string };

const notYet = (reason: string): Availability => ({ available: false, reason });
const ORDER_NOT_CONFIRMED: Partial<Record<OrderRow['status'], string>> = {
  pending: 'the order is not paid yet',
  processing: 'the order is being confirmed with the supplier',
  failed: 'the order failed',
  expired: 'the order expired unpaid',
  cancelled: 'the booking is cancelled',
  refunded: 'the booking is refunded',
  refund_requested: 'a refund of the booking is under way',
};

async function loaded(db: DbOrTx, order: OrderRow) {
  switch (order.service) {
    case 'hotel':
      return { service: 'hotel' as const, row: (await db.select().from(hotelBookings).where(eq(hotelBookings.orderId, order.id)))[0] };
    case 'flight':
      return { service: 'flight' as const, row: (await db.select().from(flightBookings).where(eq(flightBookings.orderId, order.id)))[0] };
    case 'tour':
      return {
        service: 'tour' as const,
        row: (
          await db
            .select({ prebook: tourPrebooks, departure: tourDepartures, tour: tours })
            .from(tourPrebooks)
            .innerJoin(tourDepartures, eq(tourDepartures.id, tourPrebooks.departureId))
            .innerJoin(tours, eq(tours.id, tourDepartures.tourId))
            .where(eq(tourPrebooks.orderId, order.id))
        )[0],
      };
    case 'residence':
      return {
        service: 'residence' as const,
        row: (
          await db
            .select({ stay: reservations, property: properties })
            .from(reservations)
            .innerJoin(properties, eq(properties.id, reservations.propertyId))
            .where(eq(reservations.orderId, order.id))
        )[0],
      };
    case 'visa':
      return {
        service: 'visa' as const,
        row: (
          await db
            .select({ application: visaApplications, visa: visaProducts })
            .from(visaApplications)
            .innerJoin(visaProducts, eq(visaProducts.id, visaApplications.visaProductId))
            .where(eq(visaApplications.orderId, order.id))
        )[0],
      };
    case 'product':
      return { service: 'product' as const, row: await db.select().from(orderItems).where(eq(orderItems.orderId, order.id)).orderBy(asc(orderItems.id)) };
  }
}
type Loaded = Awaited<ReturnType<typeof loaded>>;

/**
 * Whether the order's traveller document can be had: once the supplier has confirmed the
 * booking (docs/decisions/documents.md says what that is per service), whether the wallet's
 * balance or the agency's credit paid for it.
 */
function availability(order: OrderRow, l: Loaded): Availability {
  const blocked = ORDER_NOT_CONFIRMED[order.status];
  if (blocked) return notYet(blocked);
  if (!l.row) return notYet('the order has no booking');
  switch (l.service) {
    case 'hotel':
      return l.row.status === 'confirmed' ? { available: true } : notYet(`the hotel booking is ${l.row.status}`);
    case 'flight':
      return l.row.status === 'ticketed' ? { available: true } : notYet(`the tickets are not issued yet (the booking is ${l.row.status})`);
    case 'tour':
      return l.row.prebook.status === 'confirmed' ? { available: true } : notYet(`the tour seats are ${l.row.prebook.status}`);
    case 'residence':
      return l.row.stay.status === 'confirmed' || l.row.stay.status === 'completed' ? { available: true } : notYet(`the stay is ${l.row.stay.status}`);
    case 'visa':
      return l.row.application.status === 'draft' ? notYet('the application is not submitted yet') : { available: true };
    case 'product':
      return { available: true };
  }
}

export async function travelDocumentAvailability(db: DbOrTx, order: OrderRow): Promise<Availability> {
  return availability(order, await loaded(db, order));
}

/** The order's traveller document, from its booking as it is now; 409 while it cannot be had. */
export async function travelDocument(db: DbOrTx, order: OrderRow, facts: SupplierFacts): Promise<DocumentContent> {
  const l = await loaded(db, order);
  const state = availability(order, l);
  if (!state.available)
    throw new DomainError('conflict', `the ${TRAVEL_DOCUMENT_OF[order.service].title.toLowerCase()} of order ${order.id} is not available: ${state.reason}`);
  const title = TRAVEL_DOCUMENT_OF[order.service].title;
  const money = (minor: number) => `${formatDecimal(minor, order.currency)} ${order.currency}`;
  const base = { title, reference: `Order ${order.id}`, notes: [] as string[] };
  switch (l.service) {
    case 'hotel': {
      const b = l.row!;
      const place = b.hotelId !== null ? await facts.hotel(b.supplier, b.hotelId).catch(() => null) : null;
      const rooms = b.rooms ?? [];
      const guests = (b.guests ?? []) as unknown[][];
      const rows = rooms.map((r, i) => {
        const names = (guests[i] ?? []).map(nameOf);
        if (names.length === 0 && i === 0 && b.agency) names.push(b.agency.guest_name);
        return [
          String(i + 1),
          b.roomName ?? '',
          b.board ?? '',
          `${r.adults} adult(s)${r.children_ages.length ? `, ${r.children_ages.length} child(ren)` : ''}`,
          names.join(', '),
        ];
      });
      const policy = b.cancellationPolicy ?? [];
      const terms = !b.refundable
        ? ['Non-refundable: no refund if cancelled.']
        : policy.length === 0
          ? ['Free cancellation until check-in.']
          : policy.map((p) => `From ${moment(p.from)} UTC: cancellation costs ${money(p.penalty_minor)}.`);
      return {
        ...base,
        facts: [
          ['Hotel', b.hotelName ?? `Hotel ${b.hotelId}`],
          ...(place ? ([['Address', [place.address, place.city].filter(Boolean).join(', ')]] as Array<[string, string]>) : []),
          ['Check-in', dayText(b.checkIn!)],
          ['Check-out', dayText(b.checkOut!)],
          ['Confirmation number', b.confirmationNumber ?? order.supplierRef ?? ''],
          ['Booking', String(b.id)],
        ],
        tables: [{ title: 'Rooms and guests', columns: ['Room', 'Type', 'Board', 'Occupancy', 'Guests'], rows }],
        notes: [`Cancellation terms: ${terms.join(' ')}`],
      };
    }
    case 'flight': {
      const f = l.row!;
      const legs = (f.legs ?? []) as Array<{ segments?: Array<Record<string, string>> }>;
      const segments = legs.flatMap((leg) => leg.segments ?? []);
      const tickets = new Map((f.tickets ?? []).map((t) => [t.traveler_index, t.ticket_number]));
      const baggage = await facts.baggage(f.supplier, f.fareSourceCode).catch(() => null);
      const bags = new Map((baggage?.baggage ?? []).map((b) => [b.passenger_type, b]));
      const allowance = (a: { pieces: number; weight_kg: number | null }) => `${a.pieces} piece(s)${a.weight_kg ? ` of ${a.weight_kg} kg` : ''}`;
      return {
        ...base,
        facts: [
          ['Booking reference (PNR)', f.pnr ?? ''],
          ['Cabin', [f.cabin, f.fareFamily].filter(Boolean).join(', ')],
          ['Departure', moment(f.departureAt.toISOString())],
        ],
        tables: [
          {
            title: 'Flights',
            columns: ['Flight', 'From', 'To', 'Departs', 'Arrives', 'Class'],
            rows: segments.map((s) => [
              `${s.airline ?? ''}${s.flight_number ?? ''} ${s.airline_name ?? ''}`.trim(),
              s.origin ?? '',
              s.destination ?? '',
              moment(s.departure ?? ''),
              moment(s.arrival ?? ''),
              s.booking_class ?? '',
            ]),
          },
          {
            title: 'Passengers',
            columns: ['Passenger', 'Type', 'Ticket number', 'Checked baggage', 'Cabin baggage'],
            rows: f.travelers.map((t, i) => {
              const bag = bags.get(String((t as Person).passenger_type) as 'ADT');
              return [
                nameOf(t),
                typeOf(t),
                tickets.get(i) ?? '',
                bag ? allowance(bag.checked) : 'ask the airline',
                bag ? allowance(bag.cabin) : 'ask the airline',
              ];
            }),
          },
        ],
      };
    }
    case 'tour': {
      const { prebook: p, departure: d, tour: t } = l.row!;
      return {
        ...base,
        facts: [
          ['Tour', t.title],
          ['Destination', `${t.destinationCity}, ${t.destinationCountry}`],
          ['Departure', `${dayText(d.startDate)} (${t.durationDays} days, departure ${d.code})`],
          ['Seats', String(p.seats)],
          ['Confirmation number', p.confirmationNumber ?? order.supplierRef ?? ''],
        ],
        tables: [{ title: 'Passengers', columns: ['Passenger', 'Type'], rows: p.passengers.map((x) => [nameOf(x), typeOf(x)]) }],
        notes: [`Includes: ${t.includes.join(', ')}.`],
      };
    }
    case 'residence': {
      const { stay: s, property: v } = l.row!;
      return {
        ...base,
        facts: [
          ['Villa', v.name],
          ['Address', `${v.address}, ${v.city}, ${v.country}`],
          ['Check-in', dayText(s.checkIn)],
          ['Check-out', dayText(s.checkOut)],
          ['Guests', String(s.guests)],
          ['Lead guest', s.leadGuest ? nameOf(s.leadGuest) : ''],
          ['Confirmation number', s.confirmationNumber ?? order.supplierRef ?? ''],
        ],
        tables: [],
        notes: [`Cancellation policy: ${v.cancellationPolicy}.`, `House rules: ${v.houseRules.join('; ')}.`],
      };
    }
    case 'visa': {
      const { application: a, visa: v } = l.row!;
      const passport = String((a.applicant as { passport_number?: unknown }).passport_number ?? '');
      return {
        ...base,
        facts: [
          ['Visa', `${v.countryName}: ${v.title}`],
          ['Applicant', nameOf(a.applicant)],
          ...(passport ? ([['Passport', `ending ${passport.slice(-3)}`]] as Array<[string, string]>) : []),
          ['Travel', `${dayText(a.travelFrom)} to ${dayText(a.travelTo)}`],
          ['Status', a.status.replace('_', ' ')],
          ['Application reference', a.supplierReference ?? order.supplierRef ?? ''],
          ['Processing', `about ${v.processingDays} days`],
        ],
        tables: [{ title: 'Documents submitted', columns: ['Document', 'Reference'], rows: a.documents.map((d) => [d.type.replace(/_/g, ' '), d.reference]) }],
        notes: ['This receipt confirms the application was submitted; it is not a visa.'],
      };
    }
    case 'product': {
      type Address = { recipient_name?: string; city?: string; country?: string } | null;
      const details = order.details as { delivery?: Address; delivery_address?: Address };
      const delivery = details.delivery ?? details.delivery_address;
      return {
        ...base,
        facts: [
          ['Supplier reference', order.supplierRef ?? ''],
          ...(delivery
            ? ([['Deliver to', [delivery.recipient_name, delivery.city, delivery.country].filter(Boolean).join(', ')]] as Array<[string, string]>)
            : []),
        ],
        tables: [{ title: 'Products', columns: ['Product', 'SKU', 'Quantity'], rows: l.row.map((i) => [i.name, i.sku, String(i.quantity)]) }],
      };
    }
  }
}
