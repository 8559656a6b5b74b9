import crypto from 'node:crypto';
import { and, eq, isNotNull, isNull, lt, notLike, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db, DbOrTx } from '../db/client';
import { openPersonal, personalDataKeys, personalDataOwner } from '../db/personal-data';
import { flightBookings, hotelBookings, reservations, tourPrebooks, visaApplications } from '../db/schema';
import { sealedKeyId, sealedPrefix } from '../platform/secret-box';

/**
 * Travellers' personal data over its life (docs/security.md, "Travellers' personal data"):
 * sealed column by column (src/db/personal-data.ts) and sealed again under a new key while
 * one is being changed; erased a set number of days after the trip ends, or at once on a
 * data subject's request. Erasing replaces each personal field with {@link ERASED} and keeps
 * the rest of the booking: its order, prices, supplier references and the books, which
 * name the agency, never the traveller.
 */
export const ERASED = '[erased]';

/** The fields of a traveller, guest, applicant or contact that identify a person. */
const PERSONAL_FIELDS = new Set([
  'first_name',
  'last_name',
  'guest_name',
  'guest_email',
  'email',
  'phone_number',
  'phone',
  'national_id',
  'passport_number',
  'passport_expiry_date',
  'birth_date',
  'gender',
  'special_requests',
  'reference',
]);

/** The identifiers a data subject's request names a traveller by. */
const IDENTIFIERS = ['passport_number', 'national_id'];

/** A value with every personal field, at any depth, replaced by ERASED (a null stays null). */
export function anonymised<T>(value: T): T {
  if (Array.isArray(value)) return value.map(anonymised) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [
        k,
        PERSONAL_FIELDS.has(k) && v !== null && typeof v !== 'object' ? ERASED : anonymised(v),
      ]),
    ) as T;
  }
  return value;
}

/** Whether a value holds a traveller identified by `identifier` (a passport number or national id). */
function names(value: unknown, identifier: string): boolean {
  if (Array.isArray(value)) return value.some((v) => names(v, identifier));
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).some(
      ([k, v]) => (IDENTIFIERS.includes(k) && typeof v === 'string' && v.toUpperCase() === identifier) || names(v, identifier),
    );
  }
  return false;
}

/** A table holding personal data: its sealed columns, and the day its trip ends. */
interface Holder {
  name: string;
  table: PgTable;
  id: PgColumn;
  orderId: PgColumn;
  erasedAt: PgColumn;
  columns: Record<string, PgColumn>;
  /** The last day of the trip (a date), in SQL over the table's row. */
  tripEnds: SQL;
}

const HOLDERS: Holder[] = [
  {
    name: 'hotel_bookings',
    table: hotelBookings,
    id: hotelBookings.id,
    orderId: hotelBookings.orderId,
    erasedAt: hotelBookings.personalDataErasedAt,
    columns: { guests: hotelBookings.guests, contact: hotelBookings.contact, agency: hotelBookings.agency },
    tripEnds: sql`${hotelBookings.checkOut}`,
  },
  {
    name: 'flight_bookings',
    table: flightBookings,
    id: flightBookings.id,
    orderId: flightBookings.orderId,
    erasedAt: flightBookings.personalDataErasedAt,
    columns: { travelers: flightBookings.travelers, contact: flightBookings.contact },
    // The last segment's arrival (local time, ISO text), else the departure.
    tripEnds: sql`coalesce((SELECT max(left(s->>'arrival', 10))::date FROM jsonb_array_elements(coalesce(${flightBookings.legs}, '[]'::jsonb)) l, jsonb_array_elements(l->'segments') s), (${flightBookings.departureAt})::date)`,
  },
  {
    name: 'tour_prebooks',
    table: tourPrebooks,
    id: tourPrebooks.id,
    orderId: tourPrebooks.orderId,
    erasedAt: tourPrebooks.personalDataErasedAt,
    columns: { passengers: tourPrebooks.passengers },
    tripEnds: sql`(SELECT d.start_date + t.duration_days FROM tour_departures d JOIN tours t ON t.id = d.tour_id WHERE d.id = ${tourPrebooks.departureId})`,
  },
  {
    name: 'reservations',
    table: reservations,
    id: reservations.id,
    orderId: reservations.orderId,
    erasedAt: reservations.personalDataErasedAt,
    columns: { lead_guest: reservations.leadGuest },
    tripEnds: sql`${reservations.checkOut}`,
  },
  {
    name: 'visa_applications',
    table: visaApplications,
    id: visaApplications.id,
    orderId: visaApplications.orderId,
    erasedAt: visaApplications.personalDataErasedAt,
    columns: { applicant: visaApplications.applicant, documents: visaApplications.documents },
    tripEnds: sql`${visaApplications.travelTo}`,
  },
];

/** Rows handled per statement by the upkeep and by a search for a traveller. */
const BATCH = 200;

type Counts = Record<string, number>;

/** Erases the personal data of a holder's rows (those not erased yet): each column opened, anonymised and sealed again. */
async function eraseRows(db: DbOrTx, h: Holder, where: SQL, limit = BATCH): Promise<number> {
  const selection = Object.fromEntries([['id', h.id], ...Object.entries(h.columns)]) as Record<string, PgColumn>;
  const rows = (await db
    .select(selection)
    .from(h.table)
    .where(and(isNull(h.erasedAt), where))
    .limit(limit)) as Array<Record<string, unknown>>;
  let erased = 0;
  for (const row of rows) {
    const values = Object.fromEntries(Object.keys(h.columns).map((name) => [columnKey(h, name), row[name] === null ? null : anonymised(row[name])]));
    const done = await db
      .update(h.table)
      .set({ ...values, [columnKey(h, 'erasedAt')]: new Date() })
      .where(and(eq(h.id, row.id as number), isNull(h.erasedAt)))
      .returning({ id: h.id });
    erased += done.length;
  }
  return erased;
}

/** The property name drizzle knows a holder's column by (the table's key for it). */
function columnKey(h: Holder, name: string): string {
  const column = name === 'erasedAt' ? h.erasedAt : h.columns[name]!;
  const entry = Object.entries(h.table).find(([, c]) => c === column);
  if (!entry) throw new Error(`${h.name} has no column ${name}`);
  return entry[0];
}

/** Erases the personal data of an order's bookings, whatever its trip's dates. */
export async function eraseOrder(db: DbOrTx, orderId: number): Promise<Counts> {
  const counts: Counts = {};
  for (const h of HOLDERS) counts[h.name] = await eraseRows(db, h, eq(h.orderId, orderId), Number.MAX_SAFE_INTEGER);
  return counts;
}

/**
 * Erases the personal data of every booking that names a traveller by passport number or
 * national id. The identifiers are sealed, so every booking not erased yet is opened to be
 * looked at, a batch at a time: an operator's command, not a request path.
 */
export async function eraseTraveller(db: Db, identifier: string): Promise<Counts> {
  const wanted = identifier.trim().toUpperCase();
  const counts: Counts = {};
  for (const h of HOLDERS) {
    let erased = 0;
    const selection = Object.fromEntries([['id', h.id], ...Object.entries(h.columns)]) as Record<string, PgColumn>;
    for (let after = 0; ;) {
      const rows = (await db
        .select(selection)
        .from(h.table)
        .where(and(isNull(h.erasedAt), sql`${h.id} > ${after}`))
        .orderBy(h.id)
        .limit(BATCH)) as Array<Record<string, unknown>>;
      if (rows.length === 0) break;
      after = rows.at(-1)!.id as number;
      const ids = rows.filter((r) => Object.keys(h.columns).some((name) => names(r[name], wanted))).map((r) => r.id as number);
      for (const id of ids) erased += await eraseRows(db, h, eq(h.id, id));
    }
    counts[h.name] = erased;
  }
  return counts;
}

/** Erases, a batch at a time, the personal data of trips that ended before `before` (a date, YYYY-MM-DD). */
export async function eraseEndedTrips(db: Db, before: string): Promise<Counts> {
  const counts: Counts = {};
  for (const h of HOLDERS) {
    let erased = 0;
    for (;;) {
      const n = await db.transaction((tx) => eraseRows(tx, h, lt(h.tripEnds, sql`${before}::date`)));
      erased += n;
      if (n < BATCH) break;
    }
    counts[h.name] = erased;
  }
  return counts;
}

/**
 * Seals again, under the current key, every personal value that is not yet: one written in
 * the clear before its column was sealed, or one sealed under a previous key (while the key
 * is being changed). A value is written back only if it is still the one read, so a booking
 * changed meanwhile keeps its change. A value under a key this process does not have is left,
 * and counted.
 */
export async function sealPersonalData(db: Db): Promise<{ sealed: number; underOtherKeys: number }> {
  const current = `"${sealedPrefix(personalDataKeys.keyId, true)}%`;
  let sealed = 0;
  let underOtherKeys = 0;
  for (const h of HOLDERS) {
    for (const [name, column] of Object.entries(h.columns)) {
      const stale = and(isNotNull(column), notLike(sql`${column}::text`, current));
      for (let after = 0; ;) {
        const rows = (await db
          .select({ id: h.id, raw: sql<string>`${column}::text` })
          .from(h.table)
          .where(and(stale, sql`${h.id} > ${after}`))
          .orderBy(h.id)
          .limit(BATCH)) as Array<{ id: number; raw: string }>;
        if (rows.length === 0) break;
        after = rows.at(-1)!.id;
        for (const row of rows) {
          const stored: unknown = JSON.parse(row.raw);
          const keyId = typeof stored === 'string' ? sealedKeyId(stored) : null;
          if (keyId && !personalDataKeys.opens(keyId)) {
            underOtherKeys++;
            continue;
          }
          const done = await db
            .update(h.table)
            .set({ [columnKey(h, name)]: openPersonal(stored, personalDataOwner(h.name, column.name)) })
            .where(and(eq(h.id, row.id), sql`${column}::text = ${row.raw}`))
            .returning({ id: h.id });
          sealed += done.length;
        }
      }
    }
  }
  return { sealed, underOtherKeys };
}

/** What an audit row names a traveller by: a digest of the identifier, never the identifier. */
export const travellerDigest = (identifier: string) => crypto.createHash('sha256').update(identifier.trim().toUpperCase()).digest('hex').slice(0, 16);

/** Whether any row of any holder is linked to `orderId` (an order with no travellers has nothing to erase). */
export async function orderHasTravellers(db: DbOrTx, orderId: number): Promise<boolean> {
  for (const h of HOLDERS) {
    const [row] = await db.select({ id: h.id }).from(h.table).where(eq(h.orderId, orderId)).limit(1);
    if (row) return true;
  }
  return false;
}
