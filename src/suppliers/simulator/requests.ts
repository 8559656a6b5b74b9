/**
 * Reading and checking requests, the same for every simulated supplier: the JSON body (null
 * when it is not JSON), the first problem of a body that fails its schema, and the fields
 * both the airline and the bedbank take.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import { isCalendarDate } from '../../platform/calendar';

/** What the simulated suppliers price in. */
export const CURRENCY = 'IRT';

export const CalendarDate = z.string().refine(isCalendarDate, 'dates must be YYYY-MM-DD');
export const Nationality = z.string().regex(/^[A-Z]{2}$/, 'nationality must be 2 uppercase letters (ISO 3166-1 alpha-2)');
export const ClientReference = z.string().min(1).max(300);
export const Contact = z.object({ phone_number: z.string().trim().min(5).max(30), email: z.email() });
export type Contact = z.infer<typeof Contact>;
/** A traveler's or guest's name. */
export const PersonName = z.object({ first_name: z.string().trim().min(1).max(100), last_name: z.string().trim().min(1).max(100) });
/** The body of a booking step: the agent's reference, for de-duplication and scenario counts. */
export const ReferenceBody = z.object({ client_reference: ClientReference });

/** "invalid <what>: <path>: <message>" for the first issue. */
export function invalid(what: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return `invalid ${what}: ${path}${issue?.message ?? 'malformed'}`;
}

export async function jsonBody(c: Context): Promise<unknown> {
  return c.req.json().catch(() => null);
}

/** The JSON body checked against `schema` (called `what` in the error): the data, or the 400 answer. */
export async function bodyOf<S extends z.ZodType>(c: Context, schema: S, what: string): Promise<z.infer<S> | Response> {
  const parsed = schema.safeParse(await jsonBody(c));
  return parsed.success ? parsed.data : c.json({ error: invalid(what, parsed.error) }, 400);
}

/**
 * The start of a step on a stored record (ticket, refund, confirm, cancel), once its body is
 * read: the record is looked up in the current state (404), then the body is checked (400).
 * Either the record and the body, or the answer to give.
 */
export function stepOn<T, S extends z.ZodType>(
  c: Context,
  raw: unknown,
  find: () => T | undefined,
  unknown: string,
  schema: S,
  what: string,
): { record: T; body: z.infer<S> } | Response {
  const record = find();
  if (!record) return c.json({ error: unknown }, 404);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return c.json({ error: invalid(what, parsed.error) }, 400);
  return { record, body: parsed.data };
}
