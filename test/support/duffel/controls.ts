/** Faults armed by tests, Duffel's rate limiter and the request log: what the stand-in does besides answering. */

/** Every route the stand-in serves, as `METHOD /path` with Duffel's path parameters. */
export const DUFFEL_ROUTES = [
  'GET /air/airports',
  'GET /air/airports/:id',
  'POST /air/offer_requests',
  'GET /air/offer_requests/:id',
  'GET /air/offers',
  'GET /air/offers/:id',
  'POST /air/orders',
  'GET /air/orders',
  'GET /air/orders/:id',
  'POST /air/payments',
  'POST /air/order_cancellations',
  'GET /air/order_cancellations',
  'GET /air/order_cancellations/:id',
  'POST /air/order_cancellations/:id/actions/confirm',
  'POST /air/order_change_requests',
  'GET /air/order_change_requests/:id',
  'GET /air/order_change_offers',
  'GET /air/order_change_offers/:id',
  'POST /air/order_changes',
  'GET /air/order_changes/:id',
  'POST /air/order_changes/:id/actions/confirm',
  'GET /air/airline_initiated_changes',
  'PATCH /air/airline_initiated_changes/:id',
  'POST /air/airline_initiated_changes/:id/actions/accept',
  'GET /air/seat_maps',
  'GET /air/orders/:id/available_services',
  'POST /air/orders/:id/services',
  'POST /stays/search',
  'POST /stays/search_results/:id/actions/fetch_all_rates',
  'POST /stays/quotes',
  'GET /stays/quotes/:id',
  'POST /stays/bookings',
  'GET /stays/bookings',
  'GET /stays/bookings/:id',
  'POST /stays/bookings/:id/actions/cancel',
] as const;

export type DuffelRoute = (typeof DUFFEL_ROUTES)[number];

export const isDuffelRoute = (route: string): route is DuffelRoute => (DUFFEL_ROUTES as readonly string[]).includes(route);

/** The statuses a fault may answer with instead of the route's own. */
export const FAULT_STATUSES = [400, 404, 409, 422, 429, 500, 502, 503] as const;
export type FaultStatus = (typeof FAULT_STATUSES)[number];

/** A status answered instead of the route's own, before anything happens: a refusal (4xx), 429 (with `ratelimit-reset`) or a 5xx. */
export interface StatusFault {
  kind: 'status';
  status: FaultStatus;
  /** For 429: seconds until `ratelimit-reset`. */
  resetSeconds: number;
  remaining: number;
}

/** The call is carried out (its state changes), then its connection is destroyed before any answer. */
export interface LostAnswerFault {
  kind: 'lose_answer';
  remaining: number;
}

/** The call is never answered: the connection stays open, with nothing done, until the client gives up. */
export interface HangFault {
  kind: 'hang';
  remaining: number;
}

/** The call is carried out, then answered with its status and a body that is not JSON. */
export interface MalformedFault {
  kind: 'malformed';
  remaining: number;
}

export type Fault = StatusFault | LostAnswerFault | HangFault | MalformedFault;

export class Faults {
  private readonly armed = new Map<DuffelRoute, Fault[]>();

  arm(route: DuffelRoute, fault: Fault): void {
    this.armed.set(route, [...(this.armed.get(route) ?? []), fault]);
  }

  /** The first armed fault of a kind for the route, counted down. */
  take<K extends Fault['kind']>(route: DuffelRoute, kind: K): Extract<Fault, { kind: K }> | undefined {
    const fault = this.armed.get(route)?.find((f) => f.kind === kind && f.remaining > 0);
    if (!fault) return undefined;
    fault.remaining -= 1;
    return fault as Extract<Fault, { kind: K }>;
  }

  clear(): void {
    this.armed.clear();
  }
}

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** When the window resets, epoch milliseconds. */
  resetMs: number;
}

/** Duffel's limiter: a number of requests per access token per one-second window; off when `perSecond` is null. */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(public perSecond: number | null) {}

  /** Counts a request: the window's state and whether this request is over the limit; null when the limiter is off. */
  hit(token: string, nowMs: number): { state: RateLimitState; over: boolean } | null {
    if (this.perSecond === null) return null;
    const start = Math.floor(nowMs / 1000) * 1000;
    const window = this.windows.get(token);
    const current = window && window.start === start ? window : { start, count: 0 };
    current.count += 1;
    this.windows.set(token, current);
    return {
      state: { limit: this.perSecond, remaining: Math.max(0, this.perSecond - current.count), resetMs: start + 1000 },
      over: current.count > this.perSecond,
    };
  }
}

/** Duffel's rate-limit headers; `ratelimit-reset` is an HTTP date. */
export const rateLimitHeaders = (state: RateLimitState): Record<string, string> => ({
  'ratelimit-limit': String(state.limit),
  'ratelimit-remaining': String(state.remaining),
  'ratelimit-reset': new Date(state.resetMs).toUTCString(),
});

export interface RequestLogEntry {
  at: string;
  method: string;
  path: string;
  /** The matched route, when one matched. */
  route?: DuffelRoute;
  query: Record<string, string>;
  /** The request's `data`, for POSTs. */
  body?: unknown;
  status: number;
  /** The answer was lost on purpose: the call took effect, the client saw its connection drop. */
  lostAnswer: boolean;
  requestId: string;
}
