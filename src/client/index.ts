/**
 * A typed client for both interfaces and the admin API: openapi-fetch over the types
 * openapi-typescript generates from the engine's OpenAPI documents (`npm run client:generate`). It speaks
 * HTTP only and imports nothing of the engine, so a partner can take this folder as is.
 *
 *   const api = partnerClient('http://127.0.0.1:8080', { apiKey, apiSecret });
 *   const { data, error } = await api.GET('/partners/wallet/');
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths as AdminPaths } from './admin-api';
import type { paths as AgencyPaths } from './agency-api';
import type { components as PartnerSchemas, paths as PartnerPaths } from './partner-api';

export type { AdminPaths, AgencyPaths, PartnerPaths };
/** An event as the feed shows it and as every webhook delivery carries it. */
export type PartnerEvent = PartnerSchemas['schemas']['Event'];
/** The event types an endpoint can choose. */
export type EventType = NonNullable<PartnerSchemas['schemas']['WebhookEndpointRequest']['event_types']>[number];
export type PartnerClient = Client<PartnerPaths>;
export type AgencyClient = Client<AgencyPaths>;
export type AdminClient = Client<AdminPaths>;
/**
 * What sends a request; `globalThis.fetch` unless given. A test can answer in process,
 * `{ fetch: (req) => app.fetch(req) }`, without a socket.
 */
export interface Transport {
  fetch?: ClientOptions['fetch'];
}

/** What a signed-in console's browser sends: its session cookie, its CSRF token when it has one, and the Origin it came from. */
const sessionHeaders = (session: { cookie: string; csrfToken?: string; origin?: string }): Record<string, string> => ({
  Cookie: session.cookie,
  ...(session.csrfToken ? { 'X-CSRF-Token': session.csrfToken } : {}),
  ...(session.origin ? { Origin: session.origin } : {}),
});

/** Interface A (/api): every request carries the key and secret headers. */
export function partnerClient(baseUrl: string, credentials: { apiKey: string; apiSecret: string }, transport: Transport = {}): PartnerClient {
  return createClient<PartnerPaths>({
    ...transport,
    baseUrl: `${baseUrl.replace(/\/$/, '')}/api`,
    headers: { 'X-API-KEY': credentials.apiKey, 'X-API-SECRET': credentials.apiSecret },
  });
}

/**
 * Interface A (/api) as a signed-in browser reaches it: the console's session cookie, and on
 * every change its CSRF token (`GET /partners/session/` answers it). `origin`: the Origin the
 * browser sent, passed on by a server that calls on the browser's behalf.
 */
export function partnerSessionClient(
  baseUrl: string,
  session: { cookie: string; csrfToken?: string; origin?: string },
  transport: Transport = {},
): PartnerClient {
  return createClient<PartnerPaths>({
    ...transport,
    baseUrl: `${baseUrl.replace(/\/$/, '')}/api`,
    headers: sessionHeaders(session),
  });
}

/** Interface B (/v1): the agency key as a bearer token. */
export function agencyClient(baseUrl: string, agencyKey: string, transport: Transport = {}): AgencyClient {
  return createClient<AgencyPaths>({
    ...transport,
    baseUrl: `${baseUrl.replace(/\/$/, '')}/v1`,
    headers: { Authorization: `Bearer ${agencyKey}` },
  });
}

/** The admin API (on the admin port; its paths begin with /admin) with an operator's token as the bearer token. */
export function adminClient(baseUrl: string, operatorToken: string, transport: Transport = {}): AdminClient {
  return createClient<AdminPaths>({ ...transport, baseUrl: baseUrl.replace(/\/$/, ''), headers: { Authorization: `Bearer ${operatorToken}` } });
}

/**
 * The admin API as a browser signed in to the operator console reaches it: the console's
 * session cookie, and on every change its CSRF token (`GET /admin/session` answers it).
 * `origin`: the Origin the browser sent, passed on by a server that calls on its behalf.
 */
export function adminSessionClient(baseUrl: string, session: { cookie: string; csrfToken?: string; origin?: string }, transport: Transport = {}): AdminClient {
  return createClient<AdminPaths>({
    ...transport,
    baseUrl: baseUrl.replace(/\/$/, ''),
    headers: sessionHeaders(session),
  });
}
