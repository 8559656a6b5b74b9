/**
 * npm run bench:read -- [--duration SECONDS] [--connections N] [--warmup SECONDS]
 *
 * The read path of a running engine under load (autocannon): wallet, a ledger page, the
 * product list, a page of product orders (the list a partner polls for outcomes), the first
 * page of the event feed (which partners poll too) and a hotel search. Prints JSON per
 * endpoint. Each load is preceded by an unmeasured one of --warmup seconds (default 3).
 * Each endpoint is loaded by a partner of its own with the highest rate limit an operator
 * can set; any non-2xx answer fails the run (exit code 1).
 *
 * The yardsticks, measured against the benchmark engine (`BENCH_BARE_PORT=… npm run
 * bench:engine`; run this with the same BENCH_BARE_PORT): a bare Hono JSON route in the
 * engine's process, loaded first and last in the same run, each endpoint reported as a share
 * of its mean throughput (`of_bare`), so the figures say what the API's own work costs on this
 * machine today; and `bare_authenticated` (`GET /api/bench/bare/`): the same answer behind
 * Interface A's whole stack (request id, access log and metrics, body and text guards,
 * authentication, rate limit), loaded first and last too, each endpoint also reported as a
 * share of it (`of_bare_authenticated`): what its own read and answer cost. Without
 * BENCH_BARE_PORT, against any engine, the endpoints alone.
 */
import autocannon from 'autocannon';
import { admin, api, API, args, partnerHeaders, round, type Partner } from './common';
import { MAX_RATE_LIMIT_PER_MINUTE } from '../../src/domain/partners';

const opts = args({
  duration: { type: 'string', default: '10' },
  connections: { type: 'string', default: '10' },
  warmup: { type: 'string', default: '3' },
});

const BARE = process.env.BENCH_BARE_PORT ? `http://127.0.0.1:${process.env.BENCH_BARE_PORT}/bare` : undefined;
/** The bare answer behind Interface A's whole stack: served by the benchmark engine's API only (scripts/bench/engine). */
const BARE_AUTHENTICATED = '/api/bench/bare/';

interface Load {
  reqs_per_s: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  errors: number;
  of_bare?: number;
  of_bare_authenticated?: number;
}

async function load(title: string, url: string, partner: Partner | undefined, body?: unknown): Promise<Record<string, Load>> {
  const run = (duration: number) =>
    autocannon({
      url: url.startsWith('http') ? url : `${API}${url}`,
      method: body === undefined ? 'GET' : 'POST',
      headers: partner ? partnerHeaders(partner) : undefined,
      body: body === undefined ? undefined : JSON.stringify(body),
      connections: Number(opts.connections),
      duration,
    });
  // Unmeasured first: V8 optimises a route's code only after it has run for a while.
  if (Number(opts.warmup) > 0) await run(Number(opts.warmup));
  const result = await run(Number(opts.duration));
  return {
    [title]: {
      reqs_per_s: round(result.requests.average),
      p50_ms: result.latency.p50,
      p95_ms: (result.latency as unknown as Record<string, number>).p97_5 ?? result.latency.p99,
      p99_ms: result.latency.p99,
      errors: result.errors + result.non2xx,
    },
  };
}

/**
 * A partner of its own for each endpoint, with the highest rate limit an operator can set:
 * one partner for every load would spend that limit (100,000 a minute) within the run once
 * the routes are fast, and count refusals as the later routes' throughput.
 */
async function benchPartner(name: string, topup = '1000000'): Promise<Partner> {
  const partner = await admin<Partner>('POST', '/admin/partners', { name: `bench-read-${name}`, topup });
  await admin('POST', `/admin/partners/${partner.partner_id}/rate-limit`, { per_minute: MAX_RATE_LIMIT_PER_MINUTE });
  // Twenty more ledger rows: the ledger page has a full page to show.
  for (let i = 0; i < 20; i++) await admin('POST', `/admin/partners/${partner.partner_id}/topup`, { amount: '1000' });
  return partner;
}

/**
 * A partner with 20 product orders, made through the API as a partner makes them: the order
 * list it polls has a full page and a second. Pending orders have no events (an order's first
 * is order.processing), so with `paid` each is paid too, and its event feed has 40
 * (order.processing and product_order.shipped each), a full first page.
 */
async function partnerWithOrders(name: string, { paid = false } = {}): Promise<Partner> {
  // Enough credit to pay all twenty.
  const partner = await benchPartner(name, paid ? '100000000' : undefined);
  for (let i = 0; i < 20; i++) {
    const add = await api(partner, 'POST', '/api/products/basket/items/', { product: 1, variant: 1, quantity: 1 });
    const out = await api(partner, 'POST', '/api/products/checkout/', { payment_method: 'PARTNER_CREDIT' });
    if (add.status !== 201 || out.status !== 201) throw new Error(`product order ${i}: basket ${add.status}, checkout ${out.status}`);
    if (!paid) continue;
    const pay = await api(partner, 'POST', '/api/partners/pay/', { product_order_id: out.body.data!.id, idempotency_key: `bench-read-${i}` });
    if (pay.status !== 200) throw new Error(`product order ${i}: pay ${pay.status}`);
  }
  return partner;
}

/**
 * Loads a list's first page, after failing the run unless it answers a full one: a load of
 * an empty list would measure something else.
 */
async function loadList(title: string, route: string, partner: Partner): Promise<Record<string, Load>> {
  const page = await api(partner, 'GET', route);
  const rows = (page.body.data as { results?: unknown[] } | undefined)?.results ?? [];
  if (page.status !== 200 || rows.length < 15) throw new Error(`${route}: ${page.status} with ${rows.length} rows, not a full page`);
  return load(title, route, partner);
}

async function main() {
  const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
  if (BARE)
    await fetch(BARE).catch(() => {
      throw new Error(`no bare route at ${BARE}: start npm run bench:engine with the same BENCH_BARE_PORT`);
    });
  const bareFirst = BARE ? await load('bare_first', BARE, undefined) : {};
  // A partner for each of its two loads, as every endpoint has its own: one would spend its limit.
  const authPartners = BARE ? [await benchPartner('bare-authenticated-first'), await benchPartner('bare-authenticated-last')] : undefined;
  const probe = authPartners && (await api(authPartners[0]!, 'GET', BARE_AUTHENTICATED));
  if (probe && probe.status !== 200)
    throw new Error(`${BARE_AUTHENTICATED} answered ${probe.status}: start npm run bench:engine with the same BENCH_BARE_PORT`);
  const authFirst = authPartners ? await load('first', BARE_AUTHENTICATED, authPartners[0]) : {};
  const results: Record<string, Load> = {
    ...(await load('wallet', '/api/partners/wallet/', await benchPartner('wallet'))),
    ...(await loadList('ledger_page', '/api/partners/ledger/', await benchPartner('ledger'))),
    ...(await load('product_list', '/api/products/products/', await benchPartner('products'))),
    ...(await loadList('product_orders_page', '/api/partners/product-orders/', await partnerWithOrders('orders'))),
    ...(await loadList('events_page', '/api/partners/events/', await partnerWithOrders('events', { paid: true }))),
    ...(await load('hotel_search', '/api/hotel/search_hotels/', await benchPartner('hotels'), {
      city_id: 1,
      check_in: day(30),
      check_out: day(32),
      nationality_id: 'IR',
      rooms: [{ adult_count: 2 }],
    })),
  };
  const authLast = authPartners ? await load('last', BARE_AUTHENTICATED, authPartners[1]) : {};
  const bareLast = BARE ? await load('bare_last', BARE, undefined) : {};
  const bare = BARE ? (bareFirst.bare_first!.reqs_per_s + bareLast.bare_last!.reqs_per_s) / 2 : undefined;
  const bareAuthenticated = authPartners ? (authFirst.first!.reqs_per_s + authLast.last!.reqs_per_s) / 2 : undefined;
  if (bare) for (const r of Object.values(results)) r.of_bare = round(r.reqs_per_s / bare, 2);
  if (bareAuthenticated) for (const r of Object.values(results)) r.of_bare_authenticated = round(r.reqs_per_s / bareAuthenticated, 2);
  console.log(
    JSON.stringify({
      connections: Number(opts.connections),
      duration_s: Number(opts.duration),
      bare_route: BARE
        ? { ...bareFirst, ...bareLast, mean_reqs_per_s: round(bare!) }
        : 'not measured: run npm run bench:engine and the benchmark with the same BENCH_BARE_PORT',
      ...(bareAuthenticated
        ? {
            bare_authenticated: {
              ...authFirst,
              ...authLast,
              mean_reqs_per_s: round(bareAuthenticated),
              of_bare: round(bareAuthenticated / bare!, 2),
            },
          }
        : {}),
      endpoints: results,
    }),
  );
  // A figure that counts refusals or failures as requests served is not one: say so and fail.
  const yardstick = Object.fromEntries(Object.entries({ ...authFirst, ...authLast }).map(([k, r]) => [`bare_authenticated_${k}`, r]));
  const failed = Object.entries({ ...results, ...yardstick }).filter(([, r]) => r.errors > 0);
  if (failed.length) {
    console.error(`errors (non-2xx answers or failed requests) in: ${failed.map(([name, r]) => `${name} ${r.errors}`).join(', ')}`);
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
