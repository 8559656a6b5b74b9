import { z } from '@hono/zod-openapi';
import { MAX_ID } from '../domain/ids';
import { addDays, isCalendarDate, todayUtc } from '../platform/calendar';

/**
 * The validation vocabulary both interfaces share: every route builds its request schemas
 * from these, so that what the OpenAPI documents say is what the server enforces (a
 * contract fuzzer generating from the documents finds no valid-looking request refused).
 */

/** How far ahead a stay, a departure or a trip can be: 18 months. */
export const BOOKING_HORIZON_DAYS = 548;
/** The earliest birth date taken. */
export const EARLIEST_BIRTH_DATE = '1900-01-01';
/** An identity document is valid at most this far ahead. */
export const DOCUMENT_HORIZON_DAYS = 20 * 366;
/** Dates that only filter (a list's from_date) lie in these years. */
export const FILTER_YEARS = { from: 2000, to: 2100 } as const;

interface Window {
  /** The first day taken, given today. */
  from: (today: string) => string;
  /** The last day taken, given today. */
  to: (today: string) => string;
  /** The window in words, for messages and the OpenAPI description. */
  says: string;
}

const WINDOWS = {
  /** Check-in and check-out, departures, trips: from today up to the booking horizon. */
  travel: { from: (t) => t, to: (t) => addDays(t, BOOKING_HORIZON_DAYS), says: `from today (UTC) to ${BOOKING_HORIZON_DAYS} days (18 months) ahead` },
  /** Birth dates: in the past, not before 1900. */
  birth: { from: () => EARLIEST_BIRTH_DATE, to: (t) => addDays(t, -1), says: `from ${EARLIEST_BIRTH_DATE} to yesterday (UTC)` },
  /** Expiry of a passport: not expired, at most 20 years ahead. */
  document: { from: (t) => t, to: (t) => addDays(t, DOCUMENT_HORIZON_DAYS), says: 'from today (UTC) to 20 years ahead' },
  /** A date that only filters a list. */
  filter: { from: () => `${FILTER_YEARS.from}-01-01`, to: () => `${FILTER_YEARS.to}-12-31`, says: `in the years ${FILTER_YEARS.from} to ${FILTER_YEARS.to}` },
} satisfies Record<string, Window>;
export type DateWindow = keyof typeof WINDOWS;

/** A calendar date YYYY-MM-DD inside `window` (evaluated per request against today's UTC date). */
export function calendarDate(window: DateWindow) {
  const w: Window = WINDOWS[window];
  return z
    .string()
    .superRefine((v, ctx) => {
      if (!isCalendarDate(v)) return void ctx.addIssue({ code: 'custom', message: 'must be a real calendar date YYYY-MM-DD' });
      const today = todayUtc();
      const [from, to] = [w.from(today), w.to(today)];
      if (v < from || v > to) ctx.addIssue({ code: 'custom', message: `must be ${w.says}: ${from} to ${to}` });
    })
    .openapi({ format: 'date', example: addDays(todayUtc(), 30), description: `A calendar date YYYY-MM-DD ${w.says}` });
}

/**
 * A date or a date-time (ISO 8601) whose day lies in `window`: a flight's departure, asked
 * for by day or from a moment on.
 */
export function calendarDateOrTime(window: DateWindow) {
  const w: Window = WINDOWS[window];
  return z
    .string()
    .superRefine((v, ctx) => {
      const m = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))?)?$/.exec(v);
      const timeOk = !m || m[2] === undefined || (+m[2] < 24 && +m[3]! < 60 && +(m[4] ?? 0) < 60 && +(m[5] ?? 0) < 24 && +(m[6] ?? 0) < 60);
      if (!m || !isCalendarDate(m[1]!) || !timeOk)
        return void ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date or date-time, e.g. 2027-03-10 or 2027-03-10T08:00' });
      const today = todayUtc();
      const [from, to] = [w.from(today), w.to(today)];
      if (m[1]! < from || m[1]! > to) ctx.addIssue({ code: 'custom', message: `must be ${w.says}: ${from} to ${to}` });
    })
    .openapi({
      pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:?\\d{2})?)?$',
      example: `${addDays(todayUtc(), 30)}T08:00`,
      description: `An ISO 8601 date or date-time whose day is ${w.says}`,
    });
}

/**
 * What JavaScript's String.prototype.trim removes (ECMAScript WhiteSpace and LineTerminator),
 * spelled out so that the OpenAPI pattern means the same in every regex dialect.
 */
const TRIMMED = ' \\t\\n\\v\\f\\r\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** No NUL anywhere (PostgreSQL text cannot hold it); unpaired surrogates are refused before any route. */
const NO_NUL = '^[^\\u0000]*$';
/** At least one character that is neither trimmed away nor NUL (no look-ahead: generators handle it directly). */
const NOT_BLANK_NO_NUL = `^[^\\u0000]*[^${TRIMMED}\\u0000][^\\u0000]*$`;
const codePoints = (s: string) => [...s].length;

/** At most `max` characters as sent, none of them NUL: what every free string starts from. */
const storableText = (max: number) =>
  z
    .string()
    .refine((s) => codePoints(s) <= max, `must be at most ${max} characters`)
    .refine((s) => !s.includes('\u0000'), 'must not contain NUL characters');

/**
 * Free text (a name, an address, a note): at most `max` characters (Unicode code points,
 * as JSON Schema counts them) as sent, then trimmed; unless `optional blank` is allowed,
 * not blank. The pattern in the document says the same.
 */
export function text(max: number, opts: { blank?: boolean } = {}) {
  const pattern = opts.blank ? NO_NUL : NOT_BLANK_NO_NUL;
  return storableText(max)
    .trim()
    .refine((s) => opts.blank || s.length > 0, 'must not be blank')
    .openapi({ maxLength: max, ...(opts.blank ? {} : { minLength: 1 }), pattern });
}

/** An opaque value the engine handed out (a rate key, a quote id): 1 to `max` characters, no NUL. */
export const opaque = (max: number) =>
  storableText(max)
    .refine((s) => s.length > 0, 'must not be empty')
    .openapi({ minLength: 1, maxLength: max, pattern: NO_NUL });

/**
 * An email address as browsers' forms take it (the HTML living standard's definition). The
 * document states the pattern alone: JSON Schema's `format: email` (RFC 5321) is a
 * different rule, and validators disagree on it.
 */
const EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
export const email = () => z.string().max(254).regex(EMAIL, 'must be an email address').openapi({ example: 'ops@acme.example' });

export const country = (example = 'IR') =>
  z
    .string()
    .regex(/^[A-Z]{2}$/, `must be an ISO 3166-1 alpha-2 code, e.g. "${example}"`)
    .openapi({ example });
/** A country in a list filter: any case. */
export const countryFilter = () =>
  z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code')
    .openapi({ example: 'TR' });
export const phone = () =>
  z
    .string()
    .regex(/^\+?[0-9 ()-]{6,20}$/, 'must be a phone number')
    .openapi({ example: '+98 912 000 0000' });
export const passportNumber = () =>
  z
    .string()
    .regex(/^[A-Z0-9]{6,20}$/, 'must be 6 to 20 capital letters or digits')
    .openapi({ example: 'P1234567' });
export const nationalId = () =>
  z
    .string()
    .regex(/^\d{10}$/, 'must be 10 digits')
    .openapi({ example: '0012345679' });

/** An id in a JSON body: a positive integer the database can hold. */
export const bodyId = (what = 'id') =>
  z
    .number({ error: `must be an integer ${what}` })
    .int(`must be an integer ${what}`)
    .min(1, `must be a positive ${what}`)
    .max(MAX_ID, `must be at most ${MAX_ID}`);

/**
 * An id in a path or query string: digits only. One past the database's range names nothing,
 * so the domain answers it 404 (`isStorableId`), as for any id that names nothing.
 */
export const idString = () =>
  z
    .string()
    .regex(/^[1-9]\d{0,99}$/, 'must be a positive integer id')
    .openapi({ example: '1' });

/** A money amount in a query string (a filter): decimal, at most two decimals, below 10^13. */
export const amountQuery = () =>
  z
    .string()
    .regex(/^(0|[1-9]\d{0,12})(\.\d{1,2})?$/, 'must be a non-negative decimal amount with at most two decimals, e.g. "500000" or "500000.00"')
    .openapi({ example: '500000.00' });

/** A month YYYY-MM. */
export const month = () =>
  z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be YYYY-MM')
    .openapi({ example: '2027-03' });

/**
 * A whole number in a query string, between `min` and `max` (documented as an integer). Only
 * digits are read as a number: `0x2`, `1e0` or a blank are not integers, whatever
 * JavaScript's Number() makes of them.
 */
export const queryInt = (min: number, max: number) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : v),
    z.number({ error: 'must be a whole number' }).int('must be a whole number').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`),
  );

/**
 * A request object that takes exactly one of two fields, said in the document too (oneOf of
 * the two `required`: both or neither match no branch exactly once).
 */
export function exactlyOneOf<T extends z.ZodObject, A extends keyof z.infer<T> & string, B extends keyof z.infer<T> & string>(schema: T, a: A, b: B) {
  return schema
    .refine((v: z.infer<T>) => (v[a] === undefined) !== (v[b] === undefined), { message: `give exactly one of ${a} and ${b}`, path: [a] })
    .openapi({ oneOf: [{ required: [a] }, { required: [b] }] });
}
