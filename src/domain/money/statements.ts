import { and, asc, eq, gte, inArray, lt, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import {
  flightBookings,
  hotelBookings,
  ledgerEntries,
  orderItems,
  orders,
  partners,
  properties,
  reservations,
  tourDepartures,
  tourPrebooks,
  tours,
  visaApplications,
  visaProducts,
  wallets,
  type OrderService,
} from '../../db/schema';
import { DomainError, notFound, validation } from '../errors';
import type { ActorRecord } from '../../platform/actor';

/** The longest period one statement covers, in days (both ends included). */
export const MAX_STATEMENT_DAYS = 366;
/** The most movements one statement holds: a busier period is asked for in parts. */
export const MAX_STATEMENT_LINES = 20_000;

const DAY_MS = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A statement's period: whole UTC days from `from` to `to`, both included; `start` and `end` bound it as moments [start, end). */
export interface StatementPeriod {
  from: string;
  to: string;
  start: Date;
  end: Date;
}

/** A YYYY-MM-DD that is a real day, as the UTC midnight it starts at. */
export function parseDay(field: string, text: string): Date {
  const m = ISO_DATE.exec(text);
  const at = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
  if (!at || at.toISOString().slice(0, 10) !== text) throw validation(field, 'must be a real date as YYYY-MM-DD, e.g. "2026-12-01"');
  return at;
}

/** The period of `from`..`to` (YYYY-MM-DD, UTC): both real dates, in order, at most MAX_STATEMENT_DAYS days. */
export function statementPeriod(from: string, to: string): StatementPeriod {
  const start = parseDay('from', from);
  const last = parseDay('to', to);
  if (last < start) throw validation('to', 'must not be before from');
  const days = (last.getTime() - start.getTime()) / DAY_MS + 1;
  if (days > MAX_STATEMENT_DAYS) throw validation('to', `the period covers ${days} days; a statement covers at most ${MAX_STATEMENT_DAYS}`);
  return { from, to, start, end: new Date(last.getTime() + DAY_MS) };
}

export type MovementType = (typeof ledgerEntries.$inferSelect)['type'];

/** One movement of the balance in the period, with the running balance after it (minor units). */
export interface StatementLine {
  entryId: number;
  at: Date;
  type: MovementType;
  direction: 'debit' | 'credit';
  amount: number;
  balanceAfter: number;
  orderId: number | null;
  service: OrderService | null;
  description: string;
  /** Who moved the money; null where not recorded. */
  actor: ActorRecord | null;
}

export interface Statement {
  partnerId: number;
  partnerName: string;
  currency: string;
  period: StatementPeriod;
  /** The balance at the start of `from` (UTC). */
  openingBalance: number;
  /** The balance at the end of `to`: the opening balance moved by every line. */
  closingBalance: number;
  /** The credit limit at the end of `to`. */
  creditLimit: number;
  totalDebits: number;
  totalCredits: number;
  lines: StatementLine[];
}

/** A hotel city's name, where the supplier that holds the booking can tell (null: leave it out). */
export type CityName = (supplier: string, cityId: number) => Promise<string | null>;

const signed = sql<string>`coalesce(sum(case ${ledgerEntries.direction} when 'credit' then ${ledgerEntries.amount} else -${ledgerEntries.amount} end), 0)`;

/**
 * The partner's statement for a period, read from its ledger: the balance before the period
 * (every movement written before `start`), the period's movements in the order they moved the
 * balance, and the balance they leave. A credit-limit change (`credit_grant`) moves the limit,
 * not the balance: it is no line; the statement states the limit at the period's end.
 */
export async function buildStatement(db: DbOrTx, partnerId: number, period: StatementPeriod, cityName?: CityName): Promise<Statement> {
  const [who] = await db
    .select({ name: partners.name, currency: wallets.currency })
    .from(partners)
    .innerJoin(wallets, eq(wallets.partnerId, partners.id))
    .where(eq(partners.id, partnerId));
  if (!who) throw notFound(`wallet of partner ${partnerId}`);

  const mine = eq(ledgerEntries.partnerId, partnerId);
  const [before] = await db
    .select({ balance: signed })
    .from(ledgerEntries)
    .where(and(mine, ne(ledgerEntries.type, 'credit_grant'), lt(ledgerEntries.createdAt, period.start)));
  const [limit] = await db
    .select({ credit: signed })
    .from(ledgerEntries)
    .where(and(mine, eq(ledgerEntries.type, 'credit_grant'), lt(ledgerEntries.createdAt, period.end)));
  const rows = await db
    .select({
      id: ledgerEntries.id,
      createdAt: ledgerEntries.createdAt,
      type: ledgerEntries.type,
      direction: ledgerEntries.direction,
      amount: ledgerEntries.amount,
      orderId: ledgerEntries.orderId,
      reversesEntryId: ledgerEntries.reversesEntryId,
      note: ledgerEntries.note,
      actor: ledgerEntries.actor,
      service: orders.service,
    })
    .from(ledgerEntries)
    .leftJoin(orders, eq(orders.id, ledgerEntries.orderId))
    .where(and(mine, ne(ledgerEntries.type, 'credit_grant'), gte(ledgerEntries.createdAt, period.start), lt(ledgerEntries.createdAt, period.end)))
    .orderBy(asc(ledgerEntries.id))
    .limit(MAX_STATEMENT_LINES + 1);
  if (rows.length > MAX_STATEMENT_LINES) {
    throw new DomainError('validation', `to: the period holds more than ${MAX_STATEMENT_LINES} movements; ask for a shorter one`, 'to');
  }

  const orderIds = [...new Set(rows.flatMap((r) => (r.orderId === null ? [] : [r.orderId])))];
  const subjects = await describeOrders(db, orderIds, cityName);

  const opening = Number(before!.balance);
  let balance = opening;
  let totalDebits = 0;
  let totalCredits = 0;
  const lines = rows.map((r): StatementLine => {
    if (r.direction === 'credit') {
      balance += r.amount;
      totalCredits += r.amount;
    } else {
      balance -= r.amount;
      totalDebits += r.amount;
    }
    return {
      entryId: r.id,
      at: r.createdAt,
      type: r.type,
      direction: r.direction,
      amount: r.amount,
      balanceAfter: balance,
      orderId: r.orderId,
      service: r.service,
      actor: r.actor,
      description: describeMovement(r, r.orderId === null ? null : (subjects.get(r.orderId) ?? `order ${r.orderId}`)),
    };
  });
  return {
    partnerId,
    partnerName: who.name,
    currency: who.currency,
    period,
    openingBalance: opening,
    closingBalance: balance,
    creditLimit: Number(limit!.credit),
    totalDebits,
    totalCredits,
    lines,
  };
}

/** What a movement is, in words: what kind of movement, and what it paid for or gave back. */
function describeMovement(r: { type: MovementType; reversesEntryId: number | null; note: string | null }, subject: string | null): string {
  const note = r.note?.trim() ? r.note.trim() : null;
  switch (r.type) {
    case 'topup':
      return note ? `Top-up: ${note}` : 'Top-up';
    case 'payment':
      return `Payment: ${subject ?? note ?? 'no order'}`;
    case 'refund':
      if (r.reversesEntryId !== null) return `Reversal of payment ${r.reversesEntryId}${subject ? `: ${subject}` : ''}`;
      return `Refund: ${subject ?? note ?? 'no order'}`;
    case 'adjustment':
      return `Adjustment${subject ? `: ${subject}` : ''}${note ? ` (${note})` : ''}`;
    default:
      return note ?? r.type;
  }
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "10 Dec 2026" of a YYYY-MM-DD or a moment (UTC). */
export function dayText(day: string | Date): string {
  const d = typeof day === 'string' ? new Date(`${day}T00:00:00Z`) : day;
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** "3-5 Dec 2026", "30 Nov-2 Dec 2026", "30 Dec 2026-2 Jan 2027": a stay from its first day to its last. */
export function rangeText(from: string, to: string): string {
  const [a, b] = [dayText(from).split(' '), dayText(to).split(' ')];
  if (a[2] !== b[2]) return `${a.join(' ')}-${b.join(' ')}`;
  if (a[1] !== b[1]) return `${a[0]} ${a[1]}-${b.join(' ')}`;
  return `${a[0]}-${b.join(' ')}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * Each order's subject as a traveller's agent knows it, from its booking: what, where, when,
 * for whom (`travellers: false` leaves names out, for what is kept unsealed: an invoice).
 */
export async function describeOrders(db: DbOrTx, ids: number[], cityName?: CityName, opts: { travellers?: boolean } = {}): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  if (ids.length === 0) return out;
  const [hotels, flights, tourRows, stays, visas, items] = await Promise.all([
    db.select().from(hotelBookings).where(inArray(hotelBookings.orderId, ids)),
    db.select().from(flightBookings).where(inArray(flightBookings.orderId, ids)),
    db
      .select({ orderId: tourPrebooks.orderId, id: tourPrebooks.id, seats: tourPrebooks.seats, title: tours.title, startDate: tourDepartures.startDate })
      .from(tourPrebooks)
      .innerJoin(tourDepartures, eq(tourDepartures.id, tourPrebooks.departureId))
      .innerJoin(tours, eq(tours.id, tourDepartures.tourId))
      .where(inArray(tourPrebooks.orderId, ids)),
    db
      .select({
        orderId: reservations.orderId,
        id: reservations.id,
        checkIn: reservations.checkIn,
        checkOut: reservations.checkOut,
        guests: reservations.guests,
        name: properties.name,
        city: properties.city,
      })
      .from(reservations)
      .innerJoin(properties, eq(properties.id, reservations.propertyId))
      .where(inArray(reservations.orderId, ids)),
    db
      .select({
        orderId: visaApplications.orderId,
        id: visaApplications.id,
        applicant: visaApplications.applicant,
        country: visaProducts.countryName,
        title: visaProducts.title,
      })
      .from(visaApplications)
      .innerJoin(visaProducts, eq(visaProducts.id, visaApplications.visaProductId))
      .where(inArray(visaApplications.orderId, ids)),
    db
      .select({ orderId: orderItems.orderId, name: orderItems.name, quantity: orderItems.quantity })
      .from(orderItems)
      .where(inArray(orderItems.orderId, ids))
      .orderBy(asc(orderItems.id)),
  ]);

  for (const h of hotels) {
    const city = h.cityId !== null && cityName ? await cityName(h.supplier, h.cityId).catch(() => null) : null;
    const guests = (h.rooms ?? []).reduce((n, r) => n + r.adults + r.children_ages.length, 0);
    const name = h.hotelName ?? 'booking';
    const parts = [
      /^hotel\b/i.test(name) ? name : `Hotel ${name}`,
      city,
      h.checkIn && h.checkOut ? rangeText(h.checkIn, h.checkOut) : null,
      guests ? plural(guests, 'guest') : null,
    ];
    out.set(h.orderId!, `${parts.filter(Boolean).join(', ')} (booking ${h.id})`);
  }
  for (const f of flights) {
    const legs = ((f.legs ?? []) as Array<{ segments?: Array<{ origin: string; destination: string; departure: string }> }>).flatMap((l) => {
      const segs = l.segments ?? [];
      if (segs.length === 0) return [];
      const route = [segs[0]!.origin, ...segs.map((s) => s.destination)].join('-');
      return [`${route} ${dayText(segs[0]!.departure.slice(0, 10))}`];
    });
    const route = legs.length ? legs.join(', ') : dayText(f.departureAt);
    out.set(f.orderId!, `Flight ${route}${f.pnr ? `, PNR ${f.pnr}` : ''}, ${plural(f.travelers.length, 'traveller')}`);
  }
  for (const t of tourRows) out.set(t.orderId!, `Tour ${t.title}, departing ${dayText(t.startDate)}, ${plural(t.seats, 'seat')} (prebook ${t.id})`);
  for (const s of stays) out.set(s.orderId!, `${s.name}, ${s.city}, ${rangeText(s.checkIn, s.checkOut)}, ${plural(s.guests, 'guest')} (reservation ${s.id})`);
  for (const v of visas) {
    const a = v.applicant as { first_name?: unknown; last_name?: unknown };
    const who = [a.first_name, a.last_name].filter((x): x is string => typeof x === 'string').join(' ');
    out.set(v.orderId!, `Visa ${v.country}, ${v.title}${who && opts.travellers !== false ? `, for ${who}` : ''} (application ${v.id})`);
  }
  const products = new Map<number, string[]>();
  for (const i of items) products.set(i.orderId, [...(products.get(i.orderId) ?? []), `${i.name} x ${i.quantity}`]);
  for (const [orderId, list] of products) out.set(orderId, `Products: ${list.join(', ')}`);
  return out;
}
