import type { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Env } from 'hono';
import { swaggerPage } from './docs';
import { OPERATION_RIGHTS, publishedRights } from './rights';

type OpenAPIObjectConfig = Parameters<OpenAPIHono['getOpenAPI31Document']>[0];
type Document = ReturnType<OpenAPIHono['getOpenAPI31Document']>;

/** A response as an OpenAPI document states it. */
export interface ResponseObject {
  description: string;
  headers?: Record<string, { description: string; required?: boolean; schema: Record<string, unknown> }>;
  content?: Record<string, { schema: Record<string, unknown> }>;
}

/**
 * The answers an interface's shared middleware and error handler can give on every route,
 * whatever the route's own `responses` say: each applies to every operation (`all`), to the
 * operations a key protects (`authenticated`), or to those that take a body (`withBody`).
 */
export interface CommonResponses {
  all: Record<number, ResponseObject>;
  authenticated: Record<number, ResponseObject>;
  withBody: Record<number, ResponseObject>;
  /** Headers that every answer of an operation a key protects may carry (the rate limit's). */
  authenticatedHeaders?: NonNullable<ResponseObject['headers']>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The seconds `Retry-After` carries on a 503 while a part of the engine is down (src/http/unavailable.ts). */
export const RETRY_AFTER_HEADER = {
  'Retry-After': {
    description: 'Seconds to wait before trying again; sent while the database, the workflow service or every worker is unreachable',
    required: false,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
};

/** The rate limit's fields on every answer of a limited operation (src/http/rate-limit.ts; draft-ietf-httpapi-ratelimit-headers-10). */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': {
    description:
      'The quota the answer counts against, e.g. `"per-minute";q=600;w=60`: q requests per w seconds. The partner\'s on this interface; on a 429 refusing the client address, the address\'s budget it spent (`"unauthenticated"` or `"auth-failures"`)',
    required: false,
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'What is left of that quota, e.g. `"per-minute";r=599;t=42`: r requests remain, the window restarts in t seconds',
    required: false,
    schema: { type: 'string' },
  },
};

/** The seconds `Retry-After` carries on a 429: until the window that refused it restarts. */
export const RATE_LIMIT_RETRY_AFTER_HEADER = {
  'Retry-After': { description: "Seconds until the rate limit's window restarts", required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
};

/**
 * Adds the common responses to every operation that does not state that status itself (a
 * route's own wording of a status wins), so that no route can give an answer its document
 * does not list (the contract fuzzer fails on an undocumented status); and to every
 * authenticated operation the rights it needs, as `x-rights` (src/http/rights.ts).
 */
export function withCommonResponses(doc: Document, common: CommonResponses, rightsOf?: (method: string, path: string) => unknown): Document {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, unknown>)[method] as
        { responses?: Record<string, unknown>; security?: unknown[]; requestBody?: unknown; 'x-rights'?: unknown } | undefined;
      if (!op) continue;
      const rights = op.security?.length ? rightsOf?.(method, path) : undefined;
      if (rights) op['x-rights'] = rights;
      const responses = (op.responses ??= {});
      const add = (set: Record<number, ResponseObject>) => {
        for (const [status, response] of Object.entries(set)) responses[status] ??= response;
      };
      add(common.all);
      const authenticated = op.security && op.security.length > 0;
      if (authenticated) add(common.authenticated);
      if (op.requestBody) add(common.withBody);
      if (authenticated && common.authenticatedHeaders) {
        for (const [status, response] of Object.entries(responses)) {
          const r = response as ResponseObject;
          responses[status] = { ...r, headers: { ...common.authenticatedHeaders, ...r.headers } };
        }
      }
      op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
  return doc;
}

/**
 * What an interface's shared middleware and error handler answer on any route, in the
 * interface's own error shapes (`error` for a refusal, `invalid` for a request it cannot read):
 * added to every operation of its published document that does not state the status itself.
 */
export function commonResponses(o: {
  error: (description: string) => ResponseObject;
  invalid: (description: string) => ResponseObject;
  /** The status of a request that fails validation, and what it says. */
  invalidRequest: { status: 400 | 422; description: string };
  unauthorized: string;
  /** Whose rate limit, on which interface: "the partner's rate limit on Interface A". */
  rateLimit: string;
}): CommonResponses {
  return {
    all: {
      [o.invalidRequest.status]: o.invalid(o.invalidRequest.description),
      503: {
        ...o.error('A part the request needs (database, workflow service, every worker, the supplier) is unreachable; nothing was changed'),
        headers: RETRY_AFTER_HEADER,
      },
    },
    authenticated: {
      401: o.error(o.unauthorized),
      403: o.error(
        'The API connection, or the user it belongs to, lacks a right this operation needs ("forbidden: … lacks the right to …"); nothing was done. docs/guides/users-and-roles.md lists what each right allows',
      ),
      429: {
        ...o.error(
          `Over ${o.rateLimit} ("rate limit exceeded: N requests per minute; retry in S s"), or the client address spent its budget of requests without valid credentials ("too many requests without valid credentials from this address; retry in S s"); nothing was done`,
        ),
        headers: RATE_LIMIT_RETRY_AFTER_HEADER,
      },
    },
    withBody: {
      413: o.invalid('The request body is larger than 256 KiB'),
      415: o.invalid('Content-Type must be application/json'),
    },
    authenticatedHeaders: RATE_LIMIT_HEADERS,
  };
}

/** Serves the app's OpenAPI 3.1 document at `path`, with the common responses added (instead of `app.doc31`). */
export function publishDocument<E extends Env>(
  app: OpenAPIHono<E>,
  path: string,
  config: OpenAPIObjectConfig,
  common: CommonResponses,
  rightsOf?: (method: string, path: string) => unknown,
): void {
  app.get(path, (c) => c.json(withCommonResponses(app.getOpenAPI31Document(config), common, rightsOf)));
}

/** What an interface's document says of it, and where the interface is mounted. */
export interface InterfaceDescription {
  title: string;
  version: string;
  description: string;
  /** The prefix the interface is mounted under, e.g. `/api`. */
  base: string;
}

/** An interface's OpenAPI 3.1 document at `/openapi.json` and its Swagger UI page at `/docs`. */
export function publishInterface<E extends Env>(app: OpenAPIHono<E>, about: InterfaceDescription, common: CommonResponses): void {
  const info = { title: about.title, version: about.version, description: about.description };
  publishDocument(app, '/openapi.json', { openapi: '3.1.0', info, servers: [{ url: about.base }] }, common, (method, path) => {
    const operation = `${method.toUpperCase()} ${about.base}${path}`;
    return Object.hasOwn(OPERATION_RIGHTS, operation) ? publishedRights(OPERATION_RIGHTS[operation]!) : undefined;
  });
  app.get('/docs', swaggerPage({ title: about.title, specUrl: `${about.base}/openapi.json` }));
}

/** A required JSON request body of `schema`. */
export const jsonBody = <T extends z.ZodTypeAny>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
});

/** Which schemes an operation needs, as the document states it (OpenAPI security requirements). */
export type Security = Array<Record<string, string[]>>;

/**
 * The first fields of an interface's routes under one tag: method, path, tags, summary, an
 * optional description and the interface's security requirement, in the document's order.
 */
export const operationHeads = (security: Security) => (tags: string[]) => {
  const head =
    <M extends 'get' | 'post' | 'put' | 'delete'>(method: M) =>
    <P extends string>(path: P, summary: string, description?: string) => ({
      method,
      path,
      tags,
      summary,
      ...(description === undefined ? {} : { description }),
      security,
    });
  return { get: head('get'), post: head('post'), put: head('put'), del: head('delete') };
};
