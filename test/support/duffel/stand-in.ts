/// <reference types="@duffel/api" />
import type { AddressInfo } from 'node:net';
import type { AirlineInitiatedChange, Airport, OfferRequest } from '@duffel/api/types';
import { serve, type HttpBindings, type ServerType } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { Account, type BalanceMovement } from './account';
import {
  DUFFEL_ROUTES,
  FAULT_STATUSES,
  Faults,
  type FaultStatus,
  isDuffelRoute,
  RateLimiter,
  rateLimitHeaders,
  type DuffelRoute,
  type RequestLogEntry,
} from './controls';
import { notFound, StandInError, validation, type DuffelErrorBody } from './errors';
import { AirlineChanges, type AirlineChangeDetected, type PlantOptions } from './airline-changes';
import { Flights, type RecordedPayment } from './flights';
import { OrderChanges } from './order-changes';
import { WebhookSender, type DuffelWebhookEvent, type WebhookDelivery } from './webhooks';
import { paginate, parseBody, requestId, unwrap } from './http';
import { parseMinor } from './money';
import { Stays } from './stays';
import { AIRPORTS } from './world';

export interface DuffelStandInOptions {
  /** 0 (the default) takes any free port. */
  port?: number;
  host?: string;
  /** The stand-in's clock for expiries and deadlines (the rate limiter keeps real time). */
  now?: () => Date;
  /** Requests per access token per second; null (the default) switches the limiter off. */
  rateLimitPerSecond?: number | null;
  /** The Duffel balance per currency, as decimal strings (default: 1,000,000 in GBP, USD, EUR and JPY). */
  balances?: Record<string, string>;
  offerTtlSeconds?: number;
  holdSeconds?: number;
  priceGuaranteeSeconds?: number;
  cancellationTtlSeconds?: number;
  searchTtlSeconds?: number;
  quoteTtlSeconds?: number;
  /** How long an order change offer (and a change made from it) can be confirmed (30 minutes). */
  changeOfferTtlSeconds?: number;
  /** Where Duffel's webhook events are sent (none: they are kept, not sent). */
  webhookUrl?: string;
  /** The webhook's secret, which signs each delivery (`X-Duffel-Signature`). */
  webhookSecret?: string;
  /** Attempts per webhook delivery in all, a failed one tried again after 0.2 s, 0.4 s, … (3). */
  webhookAttempts?: number;
}

export interface DuffelStandInControl {
  /** The next `times` calls of the route are answered with `status` before anything happens (429 carries `ratelimit-reset`). */
  failNext(route: DuffelRoute, fault: { status: FaultStatus; times?: number; resetSeconds?: number }): void;
  /** The next `times` calls of the route take effect, then their connection is destroyed before the answer. */
  loseNextAnswer(route: DuffelRoute, opts?: { times?: number }): void;
  /** The next `times` calls of the route are never answered (nothing happens); the connection stays open until the client closes it. */
  hangNext(route: DuffelRoute, opts?: { times?: number }): void;
  /** The next `times` calls of the route take effect, then are answered with a body that is not JSON. */
  garbleNextAnswer(route: DuffelRoute, opts?: { times?: number }): void;
  /** Disarms every fault, armed refusal, price rise and removal. */
  clearFaults(): void;
  /** The offer costs `amount` more (in its currency) from its next read; `'*'`: whichever offer is read next. */
  raiseOfferPrice(offerId: string, amount: string): void;
  /** The airline withdraws the offer (`offer_no_longer_available`); `'*'`: whichever offer is read next. */
  makeOfferGone(offerId: string): void;
  expireOffer(offerId: string): void;
  /** The hold's payment deadline passes now: the airline cancels the unpaid order. */
  expireHold(orderId: string): void;
  /** The airline reprices an unpaid hold: paying the old total gets `price_changed`. */
  raiseOrderPrice(orderId: string, amount: string): void;
  expireOrderCancellation(orderCancellationId: string): void;
  /** The airline refuses the next payment (of one order, or of any): 422 `airline_error`. */
  refuseNextPayment(opts?: { orderId?: string; code?: string; message?: string }): void;
  expireStaysQuote(quoteId: string): void;
  expireStaysSearchResult(searchResultId: string): void;
  /** Every payment taken, with its order, oldest first. */
  payments(orderId?: string): RecordedPayment[];
  orderIds(): string[];
  balance(): Record<string, string>;
  setBalance(currency: string, amount: string): void;
  balanceMovements(): BalanceMovement[];
  requests(route?: DuffelRoute): RequestLogEntry[];
  setRateLimit(perSecond: number | null): void;
  /** The order change offer, and any pending change made from it, are past their expiry now. */
  expireOrderChangeOffer(orderChangeOfferId: string): void;
  /**
   * The airline moves one slice of the order (by `shiftMinutes`, 120 by default): an
   * airline-initiated change, announced by the webhook `order.airline_initiated_change_detected`
   * (sent once, twice, or not yet), resolved once the first delivery was answered.
   */
  plantAirlineChange(orderId: string, opts?: PlantOptions): Promise<{ change: AirlineInitiatedChange; event: DuffelWebhookEvent<AirlineChangeDetected> }>;
  /** Sends a webhook event again (or for the first time), signed now; null when no receiver is configured. */
  deliverWebhook(eventId: string): Promise<WebhookDelivery | null>;
  webhookEvents(): DuffelWebhookEvent[];
  /** Every delivery attempt, oldest first, with the receiver's status. */
  webhookDeliveries(): WebhookDelivery[];
  /** Someone else books this seat meanwhile: it is no longer for sale. */
  takeSeat(segmentId: string, designator: string): void;
}

export interface DuffelStandIn {
  url: string;
  port: number;
  control: DuffelStandInControl;
  stop(): Promise<void>;
}

type Env = { Bindings: HttpBindings; Variables: { requestId: string; route?: DuffelRoute; body?: unknown; lostAnswer?: boolean } };

/** The request log keeps the latest requests only, so a long chaos run does not grow it without bound. */
const MAX_LOGGED = 10_000;

const DEFAULT_BALANCES = { GBP: '1000000.00', USD: '1000000.00', EUR: '1000000.00', JPY: '150000000' };

const faultSchema = z.object({
  route: z.string().refine(isDuffelRoute, `must be one of: ${DUFFEL_ROUTES.join(', ')}`),
  times: z.number().int().min(1).default(1),
  status: z
    .number()
    .int()
    .refine((n): n is FaultStatus => (FAULT_STATUSES as readonly number[]).includes(n), `must be one of ${FAULT_STATUSES.join(', ')}`)
    .optional(),
  lose_answer: z.boolean().optional(),
  hang: z.boolean().optional(),
  malformed: z.boolean().optional(),
  reset_seconds: z.number().int().min(0).default(1),
});

/** Builds the stand-in's world and its HTTP app (Duffel's routes, then `/_stand_in/…` for the controls). */
export function createDuffelStandIn(options: Omit<DuffelStandInOptions, 'port' | 'host'> = {}): {
  app: Hono<Env>;
  control: DuffelStandInControl;
  /** Stops webhook retries still waiting. */
  dispose: () => void;
} {
  const now = options.now ?? (() => new Date());
  const account = new Account(
    now,
    Object.fromEntries(
      Object.entries(options.balances ?? DEFAULT_BALANCES).map(([currency, amount]) => {
        const minor = parseMinor(amount, currency);
        if (minor === null) throw new Error(`balance ${amount} is not an amount in ${currency}`);
        return [currency, minor];
      }),
    ),
  );
  const flights = new Flights({
    now,
    account,
    offerTtlSeconds: options.offerTtlSeconds ?? 30 * 60,
    holdSeconds: options.holdSeconds ?? 3 * 24 * 3600,
    priceGuaranteeSeconds: options.priceGuaranteeSeconds ?? 24 * 3600,
    cancellationTtlSeconds: options.cancellationTtlSeconds ?? 15 * 60,
  });
  const orderChanges = new OrderChanges({ now, account, flights, changeOfferTtlSeconds: options.changeOfferTtlSeconds ?? 30 * 60 });
  const webhooks = new WebhookSender({ now, url: options.webhookUrl, secret: options.webhookSecret, attempts: options.webhookAttempts ?? 3 });
  const airlineChanges = new AirlineChanges({ now, flights, webhooks });
  const stays = new Stays({ now, account, searchTtlSeconds: options.searchTtlSeconds ?? 30 * 60, quoteTtlSeconds: options.quoteTtlSeconds ?? 15 * 60 });
  const faults = new Faults();
  const limiter = new RateLimiter(options.rateLimitPerSecond ?? null);
  const log: RequestLogEntry[] = [];

  const control: DuffelStandInControl = {
    failNext: (route, f) => faults.arm(route, { kind: 'status', status: f.status, resetSeconds: f.resetSeconds ?? 1, remaining: f.times ?? 1 }),
    loseNextAnswer: (route, o) => faults.arm(route, { kind: 'lose_answer', remaining: o?.times ?? 1 }),
    hangNext: (route, o) => faults.arm(route, { kind: 'hang', remaining: o?.times ?? 1 }),
    garbleNextAnswer: (route, o) => faults.arm(route, { kind: 'malformed', remaining: o?.times ?? 1 }),
    clearFaults: () => {
      faults.clear();
      flights.clearFaults();
    },
    raiseOfferPrice: (id, amount) => flights.raiseOfferPrice(id, amount),
    makeOfferGone: (id) => flights.makeOfferGone(id),
    expireOffer: (id) => flights.expireOffer(id),
    expireHold: (id) => flights.expireHold(id),
    raiseOrderPrice: (id, amount) => flights.raiseOrderPrice(id, amount),
    expireOrderCancellation: (id) => flights.expireCancellation(id),
    refuseNextPayment: (o) => flights.refuseNextPayment(o),
    expireStaysQuote: (id) => stays.expireQuote(id),
    expireStaysSearchResult: (id) => stays.expireSearchResult(id),
    payments: (orderId) => flights.paymentsOf(orderId),
    orderIds: () => flights.orderIds(),
    balance: () => account.snapshot(),
    setBalance: (currency, amount) => {
      const minor = parseMinor(amount, currency);
      if (minor === null) throw validation('validation_format', 'amount', '/amount', `'${amount}' is not an amount in ${currency}`);
      account.setBalanceMinor(currency, minor);
    },
    balanceMovements: () => [...account.movements],
    requests: (route) => log.filter((e) => route === undefined || e.route === route),
    setRateLimit: (perSecond) => {
      limiter.perSecond = perSecond;
    },
    expireOrderChangeOffer: (id) => orderChanges.expireOffer(id),
    plantAirlineChange: (orderId, opts) => airlineChanges.plant(orderId, opts),
    deliverWebhook: (eventId) => webhooks.deliver(eventId),
    webhookEvents: () => webhooks.list(),
    webhookDeliveries: () => [...webhooks.deliveries],
    takeSeat: (segmentId, designator) => flights.takeSeat(segmentId, designator),
  };

  const app = new Hono<Env>({ strict: false });

  app.onError((err, c) => {
    const error =
      err instanceof StandInError
        ? err
        : new StandInError(500, 'api_error', 'internal_server_error', 'Internal server error', 'An internal server error occurred. Please try again later.');
    const body: DuffelErrorBody = { errors: [error.toObject()], meta: { status: error.status, request_id: c.get('requestId') } };
    for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
    return c.json(body, error.status as 400);
  });
  app.notFound(() => {
    throw notFound('The resource you are trying to access does not exist.');
  });

  // The request id and the log, around everything.
  app.use(async (c, next) => {
    const id = requestId();
    c.set('requestId', id);
    c.header('x-request-id', id);
    await next();
    if (c.req.path.startsWith('/_stand_in')) return;
    if (log.length >= MAX_LOGGED) log.shift();
    log.push({
      at: new Date().toISOString(),
      method: c.req.method,
      path: c.req.path,
      route: c.get('route'),
      query: c.req.query(),
      body: c.get('body'),
      status: c.res.status,
      lostAnswer: c.get('lostAnswer') ?? false,
      requestId: id,
    });
  });

  registerControlRoutes(app, control);

  // Bearer auth with a test token, the API version, then the rate limiter.
  app.use(async (c, next) => {
    const auth = c.req.header('authorization');
    if (!auth) {
      throw new StandInError(
        401,
        'authentication_error',
        'missing_authorization_header',
        'Missing authorization header',
        'The Authorization header is missing.',
      );
    }
    const token = /^Bearer (\S+)$/.exec(auth)?.[1];
    if (!token) {
      throw new StandInError(
        401,
        'authentication_error',
        'invalid_authorization_header',
        'Invalid authorization header',
        "The Authorization header must be 'Bearer <access token>'.",
      );
    }
    if (!token.startsWith('duffel_test_')) {
      throw new StandInError(
        401,
        'authentication_error',
        'access_token_not_found',
        'Access token not found',
        'The access token was not recognised: the stand-in knows test tokens (duffel_test_…) only.',
      );
    }
    if (c.req.header('duffel-version') !== 'v2') {
      throw new StandInError(400, 'invalid_request_error', 'unsupported_version', 'Unsupported version', "The Duffel-Version header must be 'v2'.");
    }
    const limit = limiter.hit(token, Date.now());
    if (limit) {
      for (const [name, value] of Object.entries(rateLimitHeaders(limit.state))) c.header(name, value);
      if (limit.over) throw rateLimited(limit.state.limit, limit.state.resetMs);
    }
    await next();
  });

  const route = (key: DuffelRoute, status: 200 | 201, handler: (c: Context<Env>, data: unknown) => unknown | Promise<unknown>) => {
    const [method, path] = key.split(' ') as [string, string];
    app.on(method, path, async (c) => {
      c.set('route', key);
      // An action (confirm, cancel, fetch_all_rates) is posted without a body.
      const text = method === 'GET' ? '' : await c.req.text();
      let raw: unknown;
      let badJson = false;
      try {
        raw = text.trim() === '' ? undefined : JSON.parse(text);
      } catch {
        badJson = true;
      }
      if (typeof raw === 'object' && raw !== null) c.set('body', 'data' in raw ? raw.data : raw);
      const fault = faults.take(key, 'status');
      if (fault) throw faultError(fault.status, fault.resetSeconds, limiter.perSecond);
      if (faults.take(key, 'hang')) {
        const socket = c.env.incoming.socket;
        await new Promise<void>((closed) => (socket.destroyed ? closed() : socket.once('close', () => closed())));
        c.set('lostAnswer', true);
        return c.body(null, 504);
      }
      if (badJson) throw new StandInError(400, 'invalid_request_error', 'bad_request', 'Bad request', 'The request body is not valid JSON.');
      const data = raw === undefined ? undefined : unwrap(raw);
      const result = await handler(c, data);
      if (faults.take(key, 'malformed')) return c.body('{"data": {"id": "ord_', status, { 'content-type': 'application/json' });
      const response = isPage(result) ? c.json(result, status) : c.json({ data: result }, status);
      if (faults.take(key, 'lose_answer')) {
        c.set('lostAnswer', true);
        c.env.incoming.socket.destroy();
      }
      return response;
    });
  };

  // ---- flights ----
  route('GET /air/airports', 200, (c) => {
    const code = c.req.query('iata_country_code');
    const airports: Airport[] = AIRPORTS.filter((a) => !code || a.iata_country_code === code);
    return paginate(airports, c.req.query());
  });
  route('GET /air/airports/:id', 200, (c) => AIRPORTS.find((a) => a.id === c.req.param('id')) ?? fail(notFound()));
  route('POST /air/offer_requests', 201, (c, data): OfferRequest | Omit<OfferRequest, 'offers'> =>
    flights.createOfferRequest(data, c.req.query('return_offers') !== 'false'),
  );
  route('GET /air/offer_requests/:id', 200, (c) => flights.getOfferRequest(c.req.param('id')!));
  route('GET /air/offers', 200, (c) => flights.listOffers(c.req.query()));
  route('GET /air/offers/:id', 200, (c) => flights.getOffer(c.req.param('id')!, c.req.query('return_available_services') === 'true'));
  route('POST /air/orders', 201, (_c, data) => flights.createOrder(data));
  route('GET /air/orders', 200, (c) => flights.listOrders(c.req.query()));
  route('GET /air/orders/:id', 200, (c) => flights.getOrder(c.req.param('id')!));
  route('POST /air/payments', 201, (_c, data) => flights.pay(data));
  route('POST /air/order_cancellations', 201, (_c, data) => flights.createCancellation(data));
  route('GET /air/order_cancellations', 200, (c) => flights.listCancellations(c.req.query()));
  route('GET /air/order_cancellations/:id', 200, (c) => flights.getCancellation(c.req.param('id')!));
  route('POST /air/order_cancellations/:id/actions/confirm', 200, (c) => flights.confirmCancellation(c.req.param('id')!));
  route('POST /air/order_change_requests', 201, (_c, data) => orderChanges.createRequest(data));
  route('GET /air/order_change_requests/:id', 200, (c) => orderChanges.getRequest(c.req.param('id')!));
  route('GET /air/order_change_offers', 200, (c) => orderChanges.listOffers(c.req.query()));
  route('GET /air/order_change_offers/:id', 200, (c) => orderChanges.getOffer(c.req.param('id')!));
  route('POST /air/order_changes', 201, (_c, data) => orderChanges.createChange(data));
  route('GET /air/order_changes/:id', 200, (c) => orderChanges.getChange(c.req.param('id')!));
  route('POST /air/order_changes/:id/actions/confirm', 200, (c, data) => orderChanges.confirmChange(c.req.param('id')!, data));
  route('GET /air/airline_initiated_changes', 200, (c) => airlineChanges.list(c.req.query()));
  route('PATCH /air/airline_initiated_changes/:id', 200, (c, data) => airlineChanges.update(c.req.param('id')!, data));
  route('POST /air/airline_initiated_changes/:id/actions/accept', 200, (c) => airlineChanges.accept(c.req.param('id')!));
  route('GET /air/seat_maps', 200, (c) => flights.seatMaps(c.req.query()));
  route('GET /air/orders/:id/available_services', 200, (c) => flights.availableServices(c.req.param('id')!));
  route('POST /air/orders/:id/services', 201, (c, data) => flights.addServices(c.req.param('id')!, data));

  // ---- stays ----
  route('POST /stays/search', 200, (_c, data) => stays.search(data));
  route('POST /stays/search_results/:id/actions/fetch_all_rates', 200, (c) => stays.fetchAllRates(c.req.param('id')!));
  route('POST /stays/quotes', 201, (_c, data) => stays.createQuote(data));
  route('GET /stays/quotes/:id', 200, (c) => stays.getQuote(c.req.param('id')!));
  route('POST /stays/bookings', 201, (_c, data) => stays.book(data));
  route('GET /stays/bookings', 200, (c) => stays.listBookings(c.req.query()));
  route('GET /stays/bookings/:id', 200, (c) => stays.getBooking(c.req.param('id')!));
  route('POST /stays/bookings/:id/actions/cancel', 200, (c) => stays.cancel(c.req.param('id')!));

  return { app, control, dispose: () => webhooks.stop() };
}

/** What an armed status answers: Duffel's error of that status. */
function faultError(status: FaultStatus, resetSeconds: number, perSecond: number | null): StandInError {
  if (status === 429) return rateLimited(perSecond ?? 4000, Date.now() + resetSeconds * 1000);
  if (status === 400) return new StandInError(400, 'invalid_request_error', 'bad_request', 'Bad request', 'The request was not understood.');
  if (status === 404) return notFound();
  if (status === 409) return new StandInError(409, 'invalid_state_error', 'conflict', 'Conflict', 'The resource is not in a state that allows this.');
  if (status === 422) return new StandInError(422, 'validation_error', 'unprocessable_entity', 'Unprocessable', 'The request could not be processed.');
  return new StandInError(
    status,
    'api_error',
    status === 503 ? 'service_unavailable' : status === 502 ? 'bad_gateway' : 'internal_server_error',
    'Server error',
    'Something went wrong. Please contact support and quote the request id.',
  );
}

const fail = (err: StandInError): never => {
  throw err;
};

const isPage = (value: unknown): value is { data: unknown[]; meta: object } =>
  typeof value === 'object' && value !== null && 'meta' in value && 'data' in value && Array.isArray((value as { data: unknown }).data);

const rateLimited = (limit: number, resetMs: number) =>
  new StandInError(
    429,
    'rate_limit_error',
    'rate_limit_exceeded',
    'Rate limit exceeded',
    'You have exceeded the rate limit. Wait until the time in the ratelimit-reset header before retrying.',
    undefined,
    rateLimitHeaders({ limit, remaining: 0, resetMs }),
  );

/** The same controls over HTTP, for a stand-in running as its own process (no Duffel client calls `/_stand_in`). */
function registerControlRoutes(app: Hono<Env>, control: DuffelStandInControl): void {
  const ok = (c: Context<Env>) => c.json({ data: { ok: true } });
  const body = async (c: Context<Env>) => ((await c.req.json().catch(() => ({}))) ?? {}) as Record<string, unknown>;
  const amountOf = async (c: Context<Env>) => parseBody(z.object({ amount: z.string() }), await body(c)).amount;
  const s = '/_stand_in';

  app.post(`${s}/faults`, async (c) => {
    const f = parseBody(faultSchema, await body(c));
    const route = f.route as DuffelRoute;
    if (f.lose_answer) control.loseNextAnswer(route, { times: f.times });
    else if (f.hang) control.hangNext(route, { times: f.times });
    else if (f.malformed) control.garbleNextAnswer(route, { times: f.times });
    else if (f.status) control.failNext(route, { status: f.status, times: f.times, resetSeconds: f.reset_seconds });
    else throw validation('validation_required', 'status', '/status', `Give a status (${FAULT_STATUSES.join(', ')}), or lose_answer, hang or malformed: true`);
    return ok(c);
  });
  app.delete(`${s}/faults`, (c) => {
    control.clearFaults();
    return ok(c);
  });
  app.post(`${s}/offers/:id/raise_price`, async (c) => {
    control.raiseOfferPrice(c.req.param('id'), await amountOf(c));
    return ok(c);
  });
  app.post(`${s}/offers/:id/gone`, (c) => {
    control.makeOfferGone(c.req.param('id'));
    return ok(c);
  });
  app.post(`${s}/offers/:id/expire`, (c) => {
    control.expireOffer(c.req.param('id'));
    return ok(c);
  });
  app.post(`${s}/orders/:id/expire_hold`, (c) => {
    control.expireHold(c.req.param('id'));
    return ok(c);
  });
  app.post(`${s}/orders/:id/raise_price`, async (c) => {
    control.raiseOrderPrice(c.req.param('id'), await amountOf(c));
    return ok(c);
  });
  app.post(`${s}/order_cancellations/:id/expire`, (c) => {
    control.expireOrderCancellation(c.req.param('id'));
    return ok(c);
  });
  app.post(`${s}/payments/refusals`, async (c) => {
    const r = parseBody(z.object({ order_id: z.string().optional(), code: z.string().optional(), message: z.string().optional() }), await body(c));
    control.refuseNextPayment({ orderId: r.order_id, code: r.code, message: r.message });
    return ok(c);
  });
  app.get(`${s}/payments`, (c) => c.json({ data: control.payments(c.req.query('order_id')) }));
  app.get(`${s}/balance`, (c) => c.json({ data: { balances: control.balance(), movements: control.balanceMovements() } }));
  app.put(`${s}/balance`, async (c) => {
    const b = parseBody(z.object({ currency: z.string().regex(/^[A-Z]{3}$/), amount: z.string() }), await body(c));
    control.setBalance(b.currency, b.amount);
    return ok(c);
  });
  app.post(`${s}/stays/quotes/:id/expire`, (c) => {
    control.expireStaysQuote(c.req.param('id'));
    return ok(c);
  });
  app.post(`${s}/stays/search_results/:id/expire`, (c) => {
    control.expireStaysSearchResult(c.req.param('id'));
    return ok(c);
  });
  app.get(`${s}/requests`, (c) => {
    const route = c.req.query('route');
    return c.json({ data: control.requests(route && isDuffelRoute(route) ? route : undefined) });
  });
  app.post(`${s}/order_change_offers/:id/expire`, (c) => {
    control.expireOrderChangeOffer(c.req.param('id'));
    return ok(c);
  });
  app.post(`${s}/orders/:id/airline_initiated_changes`, async (c) => {
    const b = parseBody(
      z.object({
        slice_index: z.number().int().min(0).optional(),
        shift_minutes: z.number().int().optional(),
        deliver: z.enum(['once', 'twice', 'none']).optional(),
      }),
      await body(c),
    );
    const planted = await control.plantAirlineChange(c.req.param('id'), { sliceIndex: b.slice_index, shiftMinutes: b.shift_minutes, deliver: b.deliver });
    return c.json({ data: planted });
  });
  app.post(`${s}/webhook_events/:id/deliver`, async (c) => {
    if (!control.webhookEvents().some((e) => e.id === c.req.param('id'))) throw notFound();
    return c.json({ data: await control.deliverWebhook(c.req.param('id')) });
  });
  app.get(`${s}/webhook_events`, (c) => c.json({ data: control.webhookEvents() }));
  app.get(`${s}/webhook_deliveries`, (c) => c.json({ data: control.webhookDeliveries() }));
  app.post(`${s}/seats/take`, async (c) => {
    const b = parseBody(z.object({ segment_id: z.string(), designator: z.string() }), await body(c));
    control.takeSeat(b.segment_id, b.designator);
    return ok(c);
  });
  app.put(`${s}/rate_limit`, async (c) => {
    const b = parseBody(z.object({ per_second: z.number().int().min(1).nullable() }), await body(c));
    control.setRateLimit(b.per_second);
    return ok(c);
  });
}

/** Starts the stand-in on a port; `url` is what `DUFFEL_API_URL` (the SDK's `basePath`) takes. */
export function startDuffelStandIn(options: DuffelStandInOptions = {}): Promise<DuffelStandIn> {
  const { app, control, dispose } = createDuffelStandIn(options);
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server: ServerType = serve({ fetch: app.fetch, port: options.port ?? 0, hostname: host }, (info: AddressInfo) => {
      resolve({
        url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${info.port}`,
        port: info.port,
        control,
        stop: () =>
          new Promise<void>((done) => {
            dispose();
            server.close(() => done());
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      });
    });
    server.on('error', reject);
  });
}
