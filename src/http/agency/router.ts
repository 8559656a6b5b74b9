import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Partner } from '../../domain/partners';
import { commonResponses, operationHeads, type ResponseObject, type Security } from '../openapi-document';
import type { RequestIdVariables } from '../request-id';

export type AgencyEnv = { Variables: RequestIdVariables & { partner: Partner } };

/** FastAPI's validation error: `{"detail": [{"loc": [...], "msg": "...", "type": "..."}]}`. */
export const ValidationDetail = z
  .object({ detail: z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() })) })
  .openapi('HTTPValidationError');
export const MessageDetail = z.object({ detail: z.string() }).openapi('HTTPError');

const SOURCE: Record<string, string> = { json: 'body', query: 'query', param: 'path', header: 'header' };

export function validationDetail(target: string, issues: z.core.$ZodIssue[]) {
  return {
    detail: issues.map((i) => ({
      loc: [SOURCE[target] ?? target, ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))],
      msg: i.message,
      type: i.code,
    })),
  };
}

/** One detail for a field the domain refused (it names the field as "field.path: message"). */
export function fieldDetail(where: 'body' | 'query' | 'path', message: string) {
  const m = /^([\w.]+): (.*)$/.exec(message);
  const loc = m ? [where, ...m[1]!.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p))] : [where];
  return { detail: [{ loc, msg: m ? m[2]! : message, type: 'value_error' }] };
}

/** A router of Interface B: invalid input answers 422 in FastAPI's shape. */
export const agencyRouter = () =>
  new OpenAPIHono<AgencyEnv>({
    strict: false,
    defaultHook: (result, c) => {
      if (!result.success) return c.json(validationDetail(result.target, result.error.issues), 422);
    },
  });

/** Interface B's security requirement: the agency key as a bearer token. */
export const secured: Security = [{ Bearer: [] }];
/** The heads of Interface B's routes under a tag: `agencyOperations(['Hotel Booking']).get(path, summary)`. */
export const agencyOperations = operationHeads(secured);

export const bError = (description: string) => ({ content: { 'application/json': { schema: MessageDetail } }, description });
export const bJson = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
export const bErrors = {
  401: bError('Missing or invalid bearer key'),
  404: bError('Not found'),
  422: { content: { 'application/json': { schema: ValidationDetail } }, description: 'Validation error' },
} as const;

/**
 * What Interface B's shared middleware and error handler answer on any route (src/http/agency/app.ts),
 * added to every operation of the published document that does not state the status itself.
 */
const detailRef = (name: 'HTTPError' | 'HTTPValidationError', description: string): ResponseObject => ({
  description,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
});
export const agencyCommonResponses = commonResponses({
  error: (description) => detailRef('HTTPError', description),
  invalid: (description) => detailRef('HTTPValidationError', description),
  invalidRequest: {
    status: 422,
    description: 'Validation error, or text the database cannot store (NUL, unpaired UTF-16 surrogates) in the path, query or body',
  },
  unauthorized: 'Missing or invalid bearer key',
  rateLimit: "the agency's rate limit on Interface B",
});
