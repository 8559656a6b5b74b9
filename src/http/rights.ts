import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Partner } from '../domain/partners';
import type { Right } from '../domain/rights';
import { actAs } from '../platform/request-context';

/**
 * What a document's download needs, by its file: an invoice or a credit note is finance's,
 * every other kind (a voucher, an itinerary or application receipt) a traveller's document.
 */
export const DOCUMENT_FILE_RIGHTS = { finance: /^(invoice|credit-note)(-\d+)?\.pdf$/, finance_rights: ['finance'], other_rights: ['documents'] } as const;

/** An operation's rights: the same for every call, or, for a document's download, by the file asked for. */
export type OperationRights = readonly Right[] | { byFile: typeof DOCUMENT_FILE_RIGHTS };
const byFile = { byFile: DOCUMENT_FILE_RIGHTS };

/**
 * The right each operation of Interfaces A and B needs, by method and path as the router
 * matched it (docs/decisions/rights.md). One table for both interfaces: `enforceRights` reads
 * it on every request, the rights test calls every operation in it with every role, and a
 * test keeps it equal to the operations the OpenAPI documents publish. An operation that
 * needs two rights (Interface B settles a booking as it makes it) lists both.
 */
export const OPERATION_RIGHTS: Record<string, OperationRights> = {
  // Interface A: the account
  'GET /api/partners/wallet/': ['finance'],
  'GET /api/partners/ledger/': ['finance'],
  'GET /api/partners/statements/': ['finance'],
  'GET /api/partners/orders/': ['view'],
  'GET /api/partners/orders/export/': ['view'],
  'GET /api/partners/product-orders/': ['view'],
  'POST /api/partners/pay/': ['pay'],
  'GET /api/partners/events/': ['view'],
  'POST /api/partners/webhooks/': ['webhooks'],
  'GET /api/partners/webhooks/': ['webhooks'],
  'DELETE /api/partners/webhooks/{id}/': ['webhooks'],
  'GET /api/partners/webhooks/deliveries/': ['webhooks'],
  'POST /api/partners/events/{id}/redeliver/': ['webhooks'],
  'GET /api/partners/profile/': ['view'],
  'POST /api/partners/profile/': ['profile'],
  'GET /api/partners/profile/logo': ['view'],
  'POST /api/partners/profile/logo': ['profile'],
  // Interface A: documents
  'GET /api/partners/orders/{id}/documents/': ['view'],
  'GET /api/partners/orders/{id}/documents/{file}': byFile,
  'GET /api/partners/invoices/': ['finance'],
  // Interface A: the organisation
  // Interface A: the agency console's session (signing in and setting a password take no credentials)
  'GET /api/partners/session/': [],
  'DELETE /api/partners/session/': [],
  'POST /api/partners/session/two-factor/': [],
  'POST /api/partners/session/two-factor/confirm/': [],
  'POST /api/partners/session/two-factor/remove/': [],
  'POST /api/partners/users/{id}/two-factor/remove/': ['users'],
  'POST /api/partners/users/{id}/invitation/': ['users'],
  'POST /api/partners/users/{id}/password-reset/': ['users'],
  'GET /api/partners/users/': ['users'],
  'POST /api/partners/users/': ['users'],
  'POST /api/partners/users/{id}/role/': ['users'],
  'POST /api/partners/users/{id}/deactivate/': ['users'],
  'GET /api/partners/connections/': ['connections'],
  'POST /api/partners/connections/': ['connections'],
  'POST /api/partners/connections/{id}/rotate/': ['connections'],
  'POST /api/partners/connections/{id}/revoke/': ['connections'],
  // Interface A: sub-agencies (their statement is finance's, as the parent's own is)
  'POST /api/partners/agencies/': ['sub_agencies'],
  'GET /api/partners/agencies/': ['sub_agencies'],
  'GET /api/partners/agencies/{id}/': ['sub_agencies'],
  'POST /api/partners/agencies/{id}/disable/': ['sub_agencies'],
  'POST /api/partners/agencies/{id}/enable/': ['sub_agencies'],
  'POST /api/partners/agencies/{id}/credit/': ['sub_agencies'],
  'GET /api/partners/agencies/{id}/markups/': ['sub_agencies'],
  'PUT /api/partners/agencies/{id}/markups/': ['sub_agencies'],
  'GET /api/partners/agencies/{id}/statement/': ['finance'],
  // Interface A: products
  'GET /api/products/products/': ['search'],
  'GET /api/products/products/{id}/': ['search'],
  'GET /api/products/product-categories/': ['search'],
  'POST /api/products/basket/items/': ['book'],
  'GET /api/products/basket/current': ['book'],
  'DELETE /api/products/basket/items/{id}/': ['book'],
  'POST /api/products/checkout/': ['book'],
  // Interface A: hotels
  'GET /api/hotel/cities/': ['search'],
  'POST /api/hotel/search_hotels/': ['search'],
  'POST /api/hotel/check_rate/': ['search'],
  'POST /api/hotel/prebook/': ['book'],
  'POST /api/hotel/book/': ['book'],
  'POST /api/hotel/order/': ['book'],
  'POST /api/hotel/booking_data/': ['view'],
  'POST /api/hotel/cancel_display/': ['view'],
  'POST /api/hotel/cancel/': ['modify'],
  // Interface A: flights
  'POST /api/flights/search_flights/': ['search'],
  'POST /api/flights/revalidate_flight/': ['search'],
  'POST /api/flights/air_rules/': ['search'],
  'POST /api/flights/air_baggages/': ['search'],
  'POST /api/flights/air_booking/': ['book'],
  'POST /api/flights/air_order_ticket/': ['view'],
  'POST /api/flights/air_booking_data/': ['view'],
  'POST /api/flights/air_refund_display/': ['view'],
  'POST /api/flights/air_refund/': ['modify'],
  'POST /api/flights/air_refund_offline/': ['modify'],
  'POST /api/flights/air_change_request/': ['modify'],
  'POST /api/flights/air_change_confirm/': ['modify', 'pay'],
  'GET /api/flights/seat_map/': ['search'],
  'GET /api/flights/air_services/': ['search'],
  'POST /api/flights/air_order_available_services/': ['view'],
  'POST /api/flights/air_order_services/': ['modify', 'pay'],
  'POST /api/flights/air_schedule_change/': ['modify'],
  // Interface A: tours
  'GET /api/tours/': ['search'],
  'GET /api/tours/search-options/': ['search'],
  'GET /api/tours/{id}/': ['search'],
  'POST /api/tours/prebook/': ['book'],
  'POST /api/tours/finalize/': ['book'],
  // Interface A: visa
  'GET /api/visa/': ['search'],
  'GET /api/visa/{id}/': ['search'],
  'POST /api/visa/request/': ['book'],
  'GET /api/visa/requests/{id}/': ['view'],
  // Interface A: residence
  'GET /api/residence/properties/list/': ['search'],
  'GET /api/residence/properties/detail/': ['search'],
  'POST /api/residence/reserve/': ['book'],
  'GET /api/residence/reserve/time/': ['view'],
  'GET /api/residence/reserve/detail/': ['view'],
  'POST /api/residence/reserve/book/': ['book'],
  'POST /api/residence/bookings/cancel/': ['modify'],
  'POST /api/residence/bookings/accept-cancel/': ['modify'],
  'POST /api/residence/bookings/modify/': ['modify'],
  // Interface B
  'GET /v1/hotels/search': ['search'],
  'GET /v1/hotels/{hotel_id}': ['search'],
  'POST /v1/hotels/bookings': ['book', 'pay'],
  'GET /v1/hotels/bookings': ['view'],
  'DELETE /v1/hotels/bookings/{booking_id}': ['modify'],
  'GET /v1/hotels/bookings/{booking_id}/documents': ['view'],
  'GET /v1/hotels/bookings/{booking_id}/documents/{file}': byFile,
  'GET /v1/products': ['search'],
  'GET /v1/products/{product_id}': ['search'],
  'POST /v1/products/orders': ['book', 'pay'],
  'GET /v1/products/orders/{order_id}': ['view'],
  'GET /v1/products/orders/{order_id}/documents': ['view'],
  'GET /v1/products/orders/{order_id}/documents/{file}': byFile,
  'GET /v1/events': ['view'],
  'POST /v1/webhooks': ['webhooks'],
  'GET /v1/webhooks': ['webhooks'],
  'DELETE /v1/webhooks/{webhook_id}': ['webhooks'],
};

/** Operations served beside the interfaces' own (the benchmarks' yardstick), with the rights each needs. */
const addedOperations = new Map<string, OperationRights>();

/** Names the rights of an operation a process adds to Interface A or B outside their routers (never one of theirs). */
export function addOperationRights(operation: string, needs: OperationRights): void {
  if (Object.hasOwn(OPERATION_RIGHTS, operation)) throw new Error(`${operation} is in the rights table already`);
  addedOperations.set(operation, needs);
}

/** The rights a call of `operation` needs, `file` being its path's `file` parameter where it has one. */
export function rightsNeeded(needs: OperationRights, file: string | undefined): readonly Right[] {
  if (!('byFile' in needs)) return needs;
  return needs.byFile.finance.test(file ?? '') ? needs.byFile.finance_rights : needs.byFile.other_rights;
}

/** The rights an operation's OpenAPI document states (`x-rights`): a list, or by the file asked for. */
export function publishedRights(needs: OperationRights): readonly string[] | Record<string, readonly string[]> {
  if (!('byFile' in needs)) return needs;
  return { [`file matching ${needs.byFile.finance.source}`]: needs.byFile.finance_rights, 'any other file': needs.byFile.other_rights };
}

/** An operation's key in OPERATION_RIGHTS: its method and its path as OpenAPI writes it (`{id}`, where the router has `:id`). */
export const operationKey = (method: string, routerPath: string) =>
  `${method.toUpperCase()} ${routerPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)(\{[^}]*\})?/g, '{$1}')}`;

/**
 * The route a request reached: the first the router matched for its method, in the order
 * routes were added, which is the handler that answers (middleware is matched for every
 * method, as ALL); with its operation's key and its path's parameters, which a middleware is
 * not given (`/api/partners/orders/:id/documents/:file` read against the path, undecoded).
 */
export function reachedOperation(c: Context): { operation: string; params: Record<string, string> } | undefined {
  const route = matchedRoutes(c).find((r) => r.method !== 'ALL');
  if (!route) return undefined;
  const values = c.req.path.split('/');
  const params: Record<string, string> = {};
  route.path.split('/').forEach((segment, i) => {
    const name = /^:([A-Za-z_][A-Za-z0-9_]*)/.exec(segment)?.[1];
    if (name && values[i] !== undefined) params[name] = values[i]!;
  });
  return { operation: operationKey(route.method, route.path), params };
}

/** A path parameter decoded, or as written when it does not decode (the route refuses such a path after this). */
function decoded(raw: string | undefined): string {
  try {
    return decodeURIComponent(raw ?? '');
  } catch {
    return raw ?? '';
  }
}

/**
 * Lets a request through, recording who acts on it (src/platform/request-context.ts), when
 * its principal holds every right its operation needs; else refuses it: 403 in the
 * interface's own shape, naming the rights missing. A request that reached no operation
 * goes on to its 404 or 405. An operation missing from the table is refused too: a new route
 * is closed until the table says who may call it.
 */
export function enforceRights<E extends { Variables: { partner: Partner } }>(
  isPublic: (c: Context) => boolean,
  refuse: (c: Context<E>, message: string) => Response,
): MiddlewareHandler<E> {
  return async (c, next) => {
    if (isPublic(c)) return next();
    const reached = reachedOperation(c);
    if (reached === undefined) return next();
    const { operation, params } = reached;
    const needs = Object.hasOwn(OPERATION_RIGHTS, operation) ? OPERATION_RIGHTS[operation] : addedOperations.get(operation);
    const { rights, actor } = c.get('partner').principal;
    const missing = needs ? rightsNeeded(needs, decoded(params.file)).filter((r) => !rights.has(r)) : ['an entry in the rights table'];
    if (missing.length === 0) {
      actAs(actor);
      return next();
    }
    const who = actor.type === 'user' ? `user ${actor.name}` : `API connection ${actor.name}`;
    return refuse(c, `forbidden: ${who} lacks the right to ${missing.join(' and ')} (${operation})`);
  };
}
