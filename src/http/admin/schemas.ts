/**
 * The admin API's shapes, as its OpenAPI document states them (GET /admin/openapi.json) and
 * as the generated client types them (src/client/admin-api.ts). Its answers are bare JSON,
 * not Interface A's envelope, and every refusal is `{error}`.
 */
import { z } from '@hono/zod-openapi';
import { Decimal, TravelOrder, Wallet } from '../partner/schemas';
import { RATE_LIMIT_RETRY_AFTER_HEADER, RETRY_AFTER_HEADER, type CommonResponses, type ResponseObject } from '../openapi-document';

export { Decimal, TravelOrder, Wallet };
export { jsonBody } from '../openapi-document';

export const ErrorBody = z.object({ error: z.string().openapi({ example: 'amount: must be a positive amount' }) }).openapi('Error');

/** A refusal in the admin API's shape, `{error}`. */
export const errorResponse = (description: string) => ({ content: { 'application/json': { schema: ErrorBody } }, description });

/** A JSON answer of `schema`. */
export const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });

/** `Retry-After` on an answer that asks the caller to wait, in the route definitions' types. */
export const retryAfter = (description: string) => ({
  'Retry-After': { description, required: true, schema: { type: 'string' as const, pattern: '^[0-9]+$' } },
});

/** A file download of `type`. */
export const file = (type: string, description: string) => ({
  content: { [type]: { schema: z.string().openapi({ format: 'binary' }) } },
  description,
  headers: { 'Content-Disposition': { description: 'attachment; filename="…"', schema: { type: 'string' as const } } },
});

/** What the error handler answers for a row a path names (../../domain/errors.ts). */
export const notFoundResponse = { 404: errorResponse('No row has that id') } as const;
export const conflictResponse = (description: string) => ({ 409: errorResponse(description) }) as const;

const ID = /^[1-9]\d{0,9}$/;

/** A row id in the path's `{name}`, refused 400 with `what` in its message ("partner: must be a positive integer id"). */
export const idPath = (what: string, name = 'id') =>
  z
    .string()
    .regex(ID, `${what}: must be a positive integer id`)
    .openapi({ param: { name, in: 'path' }, example: '1', description: `The ${what}'s id` });

/** `{id}` in the path: the row `what` names. */
export const IdParams = (what: string) => z.object({ id: idPath(what) });

/** A decimal amount, as text or a number: `"1250000.00"` or `1250000`. */
export const Amount = z.union([z.string().max(40), z.number()]).openapi({ example: '1250000.00', description: "A decimal amount of the wallet's currency" });

const errorRef = (description: string): ResponseObject => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/**
 * What the admin app's shared middleware and error handler answer on any route (./app.ts),
 * added to each operation of its document that does not state the status itself.
 */
export const adminCommonResponses: CommonResponses = {
  all: {
    400: errorRef(
      'Invalid request: a field failed validation, or the path, query or body holds text the database cannot store (NUL, unpaired UTF-16 surrogates); the message names it',
    ),
    503: { ...errorRef('A part the request needs (the database, the workflow service) is unreachable; nothing was changed'), headers: RETRY_AFTER_HEADER },
  },
  authenticated: {
    401: errorRef('Missing or invalid operator token, or the console session ended'),
    403: errorRef('A change made with the console session without its X-CSRF-Token or from another origin; or an approval of one’s own adjustment'),
    429: {
      ...errorRef('Too many bad admin tokens from this client address this minute; nothing was done'),
      headers: RATE_LIMIT_RETRY_AFTER_HEADER,
    },
  },
  withBody: {
    413: errorRef('The request body is larger than 256 KiB'),
    415: errorRef('Content-Type must be application/json'),
  },
};

/** A page of a list (./input.ts `pageAnswer`). */
export const paged = <T extends z.ZodTypeAny>(item: T) =>
  z.object({
    count: z.number().int().openapi({ description: 'How many rows match' }),
    page: z.number().int(),
    page_size: z.number().int(),
    next_page: z.number().int().nullable(),
    results: z.array(item),
  });

const pageQueryField = (max: number, description: string) =>
  z
    .string()
    .optional()
    .openapi({ pattern: '^[1-9][0-9]{0,6}$', description: `${description}; a whole number from 1 to ${max}` });

/** `?page=&page_size=` (./input.ts `pageOf`). */
export const pageQuery = (maxPageSize: number) => ({
  page: pageQueryField(1_000_000, 'The page, from 1'),
  page_size: pageQueryField(maxPageSize, 'Rows a page'),
});

/** Credentials as issued: only the parts that were issued, each shown only in this answer. */
export const Credentials = z
  .object({
    partner_id: z.number().int(),
    api_key: z.string().optional(),
    api_secret: z.string().optional().openapi({ description: 'Shown only in this answer' }),
    agency_key: z.string().optional().openapi({ description: "Interface B's bearer key; shown only in this answer" }),
  })
  .openapi('Credentials');

/** `Idempotency-Key` (./actions.ts `auditedOnce`). */
export const IdempotencyHeaders = z.object({
  'Idempotency-Key': z.string().optional().openapi({
    description:
      'The same key with the same request answers the first answer again and does nothing; with another request, 422. 1 to 200 visible ASCII characters',
  }),
});
