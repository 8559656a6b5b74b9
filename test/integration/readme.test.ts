import { and, asc, desc, eq } from 'drizzle-orm';
import { ledgerEntries, orders, reservations } from '../../src/db/schema';
import { adminClient, call, newPartner, type PartnerCredentials, type Reply } from '../support/clients';
import { scheduledActivities } from '../support/histories';
import { guides, mismatch, parseNote, parsePattern, readDoc, tableAfter, walkThrough } from '../support/readme';
import { runWalkThrough } from '../support/walkthrough';
import { BOOKING_HORIZON_DAYS } from '../../src/http/vocabulary';
import { type TestStack, useStack } from '../support/stack';
import { contact, day, roomGuests, traveller } from '../support/fixtures';

/**
 * The README and the guides run as written: the walk-throughs, read from README.md and
 * docs/guides/ at test time and run in order against a fresh engine (README.md's first, then
 * the guides' in the order of docs/guides/README.md; the ids they show are a fresh
 * database's), each answer checked against what the walk-through shows; and the "Sandbox
 * scenarios" table of docs/guides/sandbox-scenarios.md, row by row and service by service.
 * test/support/readme.ts states the reading rules.
 *
 * The stack keeps the relations of the defaults with shorter times: a payment's supplier
 * attempts (3 here, so that supplier_flaky books on the last; 5 by default ≈ 15 s) end well
 * within PAY_WAIT_MS (8 s here, 25 s by default), and supplier_slow (12 s here, 35 s)
 * outlasts it. Each sandbox run has a partner of its own (its wallet and its latest order
 * are the run's) and dates or seats of its own, so the runs of a row go side by side.
 */

let stack: TestStack;
const PAY_WAIT_MS = 8_000;
const SLOW_MS = 12_000;
useStack((s) => (stack = s), { payWaitMs: PAY_WAIT_MS, slowMs: SLOW_MS, finalizeAttempts: 3, visaDecisionMs: 1_500 });

/** README.md, then every guide, in the order the walk-throughs continue one another. */
const DOCS = [readDoc('README.md'), ...guides()];
const SANDBOX = readDoc('docs/guides/sandbox-scenarios.md');

/** A walk-through is a section whose heading starts with "Walk-through". */
const WALK_THROUGHS = (heading: string) => /^walk-through\b/i.test(heading);

describe('the walk-throughs of the README and the guides', () => {
  it('reads the walk-throughs: every command is one the test runs', () => {
    const steps = walkThrough(DOCS, WALK_THROUGHS);
    // README.md's own and at least four guides' (hotel, flight, tours/residence/visa, Interface B, events).
    expect(steps.filter((s) => s.file === 'README.md').length).toBeGreaterThan(5);
    expect(new Set(steps.map((s) => s.file)).size).toBeGreaterThan(4);
    // The README's partner create, and the flight guide's schedule-change polls and list.
    expect(steps.filter((s) => s.kind === 'admin')).toHaveLength(4);
    expect(steps.filter((s) => s.kind === 'call').length).toBeGreaterThan(30);
    for (const s of steps) if ((s.kind === 'call' || s.kind === 'admin') && s.note) expect(() => parseNote(s.note!)).not.toThrow();
  });

  it('book dates that stay bookable for two more months (a reader copies them as written)', () => {
    // Every date is checked against today and the booking horizon; a walk-through that goes stale breaks for readers first.
    const text = JSON.stringify(walkThrough(DOCS, WALK_THROUGHS));
    const dates = [...text.matchAll(/\b(?:check_in|check_out|departure_date_time|from|to)\W{1,6}(20\d\d-\d\d-\d\d)/g)].map((m) => m[1]!).sort();
    expect(dates.length).toBeGreaterThan(3);
    const inDays = (d: string) => Math.floor((Date.parse(`${d}T00:00:00Z`) - Date.parse(`${day(0)}T00:00:00Z`)) / 86_400_000);
    const soonest = dates[0]!;
    const latest = dates[dates.length - 1]!;
    if (inDays(soonest) < 60) throw new Error(`a walk-through books ${soonest}, ${inDays(soonest)} days from today: move its dates forward`);
    if (inDays(latest) > BOOKING_HORIZON_DAYS) throw new Error(`a walk-through books ${latest}, past the ${BOOKING_HORIZON_DAYS}-day horizon`);
  });

  it('run as written, answering what they show', async () => {
    const answers = await runWalkThrough(stack, walkThrough(DOCS, WALK_THROUGHS));

    // The hotel walk-through ends with a cancellation that credits a refund.
    const cancel = answers.find((a) => a.path === '/api/hotel/cancel/');
    expect(cancel).toBeDefined();
    const { order_id: orderId, refund_amount: refund } = (cancel!.body as { data: { order_id: number; refund_amount: string } }).data;
    expect(Number(refund)).toBeGreaterThan(0);
    const rows = await stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, orderId));
    expect(rows.map((r) => r.type)).toEqual(['payment', 'refund']);
    expect(rows[1]!.amount).toBe(Math.round(Number(refund) * 100));
  });
});

// ----------------------------------------------------------------------------- the sandbox table

/** What a row's "on" cell names: a call, on a service. */
type Target =
  | `pay:${Service}`
  | 'hotel:check_rate'
  | 'hotel:prebook'
  | 'hotel:book'
  | 'hotel:cancel'
  | 'flight:revalidate_flight'
  | 'flight:air_refund'
  | 'visa:request'
  | 'residence:modify'
  | 'B:hotel'
  | 'B:product';
type Service = 'product' | 'hotel' | 'flight' | 'tour' | 'residence' | 'visa';
const SERVICES: Record<string, Service> = {
  products: 'product',
  hotels: 'hotel',
  flights: 'flight',
  tours: 'tour',
  residence: 'residence',
  visa: 'visa',
};

/** The targets of an "on" cell: `pay: every service` / `pay: hotels, flights` / ``hotel `prebook`, `book` `` / `B: hotel bookings, product orders`. */
function targetsOf(on: string): Target[] {
  const pay = /^pay: (.*)$/.exec(on);
  if (pay) {
    if (pay[1] === 'every service') return Object.values(SERVICES).map((s) => `pay:${s}` as const);
    return pay[1]!.split(', ').map((name) => {
      if (!SERVICES[name]) throw new Error(`unknown service "${name}"`);
      return `pay:${SERVICES[name]}` as const;
    });
  }
  const b = /^B: (.*)$/.exec(on);
  if (b) {
    return b[1]!.split(', ').map((what) => {
      if (what === 'hotel bookings') return 'B:hotel' as const;
      if (what === 'product orders') return 'B:product' as const;
      throw new Error(`unknown Interface B call "${what}"`);
    });
  }
  const m = /^(hotel|flight|visa|residence) (.*)$/.exec(on);
  if (!m) throw new Error(`unknown "on" cell: ${on}`);
  return [...m[2]!.matchAll(/`(\w+)`/g)].map((c) => `${m[1]}:${c[1]}` as Target);
}

interface Row {
  file: string;
  line: number;
  scenario: string;
  on: string;
  targets: Target[];
  status: number;
  patterns: string[];
  /** The order's status once the scenario has played out ("order `x`"). */
  orderStatus?: string;
  parks: boolean;
}

const ROWS: Row[] = tableAfter(SANDBOX, 'Sandbox scenarios').map(({ file, line, cells }) => {
  const [scenario, on, , answer] = cells;
  const status = /^(\d{3})\b/.exec(answer ?? '');
  if (!scenario || !on || !answer || !status)
    throw new Error(`${file}:${line}: a sandbox row needs scenario, on, supplier and an answer starting with its status`);
  return {
    file,
    line,
    scenario: scenario.replace(/`/g, ''),
    on,
    targets: targetsOf(on),
    status: Number(status[1]),
    patterns: [...answer.matchAll(/`([{[].*?[}\]])`/g)].map((m) => m[1]!),
    orderStatus: /order `(\w+)`/.exec(answer)?.[1],
    parks: answer.includes('`needs_attention`'),
  };
});

/** Runs so far: each gets a partner, dates and seats of its own. */
let runs = 0;

interface Played {
  reply: Reply;
  creds: PartnerCredentials;
  /** The order the scenario played on. */
  orderId: () => Promise<number>;
  /** The payment's workflow, when the scenario played on pay (docs/decisions/pay.md: its id). */
  paymentId?: string;
  /** A check of its own for the row (prices moved, a cancellation that went through on the next try, …). */
  afterwards?: () => Promise<void>;
}

async function play(scenario: string, target: Target): Promise<Played> {
  const n = ++runs;
  const creds = await adminClient(stack).createPartner({ name: `Sandbox ${n}`, credit_limit: '0', topup: '5000000000' });
  const auth = { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret };
  const post = (p: string, body: unknown, sandbox?: string) => call(stack.app, 'POST', p, sandbox ? { ...auth, 'x-sandbox-scenario': sandbox } : auth, body);
  const get = (p: string) => call(stack.app, 'GET', p, auth);
  const must = (res: Reply, what: string) => {
    if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  const latestOrder = async () => (await stack.db.select().from(orders).where(eq(orders.partnerId, creds.partner_id)).orderBy(desc(orders.id)).limit(1))[0]!.id;

  const hotelRate = async (refundable?: boolean) => {
    const found = must(
      await post('/api/hotel/search_hotels/', {
        city_id: 1,
        check_in: day(30 + n),
        check_out: day(31 + n),
        nationality_id: 'IR',
        rooms: [{ adult_count: 1 }],
      }),
      'search',
    );
    for (const h of found.results)
      for (const r of h.rates) if (refundable === undefined || r.refundable === refundable) return r as { rate_key: string; total_price: string };
    throw new Error('no rate');
  };
  const hotelOrder = async () => {
    const rate = await hotelRate(true);
    const booked = must(await post('/api/hotel/book/', { rate_key: rate.rate_key, guests: roomGuests, contact }), 'book');
    return must(await post('/api/hotel/order/', { booking_id: booked.booking_id }), 'order').id as number;
  };
  const flightOffer = async () => {
    const found = must(
      await post('/api/flights/search_flights/', {
        origin: 'THR',
        destination: 'MHD',
        departure_date_time: `${day(20 + n)}T00:00:00Z`,
        adult_count: 1,
        cabin_type: 'economy',
        air_trip_type: 'one_way',
      }),
      'search',
    );
    return found.results.find((r: { refundable: boolean }) => r.refundable) as { fare_source_code: string; total_price: string };
  };
  const flightOrder = async () =>
    must(
      await post('/api/flights/air_booking/', {
        fare_source_code: (await flightOffer()).fare_source_code,
        traveler_info: { contact, air_travelers: [traveller] },
      }),
      'book',
    ).id as number;
  const visaBody = (visaId: number) => ({
    visa_id: visaId,
    applicant: {
      first_name: 'Sara',
      last_name: 'Ahmadi',
      birth_date: '1990-02-01',
      gender: 'female',
      nationality: 'IR',
      passport_number: 'P12345678',
      passport_expiry_date: day(3000),
    },
    travel: { from: day(60), to: day(65) },
    documents: [
      { type: 'passport', reference: 'scan.pdf' },
      { type: 'photo', reference: 'photo.jpg' },
    ],
  });
  const orderOf: Record<Service, () => Promise<number>> = {
    product: async () => {
      must(await post('/api/products/basket/items/', { product: 1, variant: 1, quantity: 1 }), 'basket');
      return must(await post('/api/products/checkout/', { payment_method: 'PARTNER_CREDIT' }), 'checkout').id;
    },
    hotel: hotelOrder,
    flight: flightOrder,
    tour: async () => {
      const tourId = 2 + (n % 12);
      const tour = must(await get(`/api/tours/${tourId}/`), 'tour');
      const dep = tour.departures.find((d: { seats_left: number }) => d.seats_left > 1);
      const pre = must(await post('/api/tours/prebook/', { tour_id: tourId, departure_id: dep.id, passengers: [traveller] }), 'prebook');
      return must(await post('/api/tours/finalize/', { prebook_id: pre.prebook_id }), 'finalize').id;
    },
    residence: async () => {
      const lead = { first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', phone_number: '+989121234567', national_id: '0012345679' };
      const held = must(
        await post('/api/residence/reserve/', {
          property_id: 2,
          check_in: day(200 + 3 * n),
          check_out: day(202 + 3 * n),
          guests: 2,
          lead_guest: lead,
        }),
        'reserve',
      );
      return must(await post('/api/residence/reserve/book/', { reservation_id: held.reservation_id }), 'book').id;
    },
    visa: async () => must(await post('/api/visa/request/', visaBody(9)), 'visa request').id,
  };
  const pay = async (service: Service, orderId: number, sandbox?: string) =>
    post('/api/partners/pay/', { [service === 'product' ? 'product_order_id' : 'order_id']: orderId, idempotency_key: `sandbox-${n}` }, sandbox);

  const b = (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(stack.app, method, p, { authorization: `Bearer ${creds.agency_key}`, ...headers }, body);

  if (target.startsWith('pay:')) {
    const service = target.slice(4) as Service;
    const orderId = await orderOf[service]();
    return { creds, reply: await pay(service, orderId, scenario), orderId: async () => orderId, paymentId: `pay:p${creds.partner_id}:key:sandbox-${n}` };
  }
  switch (target) {
    case 'hotel:check_rate': {
      const rate = await hotelRate();
      const reply = await post('/api/hotel/check_rate/', { rate_key: rate.rate_key }, scenario);
      return {
        creds,
        reply,
        orderId: () => Promise.reject(new Error('no order')),
        afterwards: async () => {
          expect(reply.body.data.previous_price).toBe(rate.total_price);
          expect(Number(reply.body.data.total_price) / Number(rate.total_price)).toBeCloseTo(1.07, 2);
        },
      };
    }
    case 'hotel:prebook':
    case 'hotel:book': {
      const rate = await hotelRate();
      let reply: Reply;
      let bookingId: number;
      if (target === 'hotel:prebook') {
        reply = await post('/api/hotel/prebook/', { rate_key: rate.rate_key }, scenario);
        bookingId = must(reply, 'prebook').booking_id;
        const named = must(await post('/api/hotel/book/', { booking_id: bookingId, guests: roomGuests, contact }), 'book after prebook');
        expect(named).toMatchObject({ total_price: reply.body.data.total_price, price_changed: false });
      } else {
        reply = await post('/api/hotel/book/', { rate_key: rate.rate_key, guests: roomGuests, contact }, scenario);
        bookingId = must(reply, 'book').booking_id;
      }
      const order = must(await post('/api/hotel/order/', { booking_id: bookingId }), 'order');
      return {
        creds,
        reply,
        orderId: async () => order.id,
        afterwards: async () => {
          expect(reply.body.data.previous_price).toBe(rate.total_price);
          expect(Number(reply.body.data.total_price) / Number(rate.total_price)).toBeCloseTo(1.07, 2);
          expect(order.total_price).toBe(reply.body.data.total_price);
        },
      };
    }
    case 'hotel:cancel': {
      const orderId = await hotelOrder();
      must(await pay('hotel', orderId), 'pay');
      const reply = await post('/api/hotel/cancel/', { order_id: orderId }, scenario);
      return {
        creds,
        reply,
        orderId: async () => orderId,
        afterwards: async () => {
          // "cancel again later"
          expect(must(await post('/api/hotel/cancel/', { order_id: orderId }), 'cancel again')).toMatchObject({ status: 'cancelled' });
        },
      };
    }
    case 'flight:revalidate_flight': {
      const offer = await flightOffer();
      const reply = await post('/api/flights/revalidate_flight/', { fare_source_code: offer.fare_source_code }, scenario);
      return {
        creds,
        reply,
        orderId: () => Promise.reject(new Error('no order')),
        afterwards: async () => {
          const now = reply.body.data;
          expect(now.previous_price).toBe(offer.total_price);
          expect(Number(now.total_price) / Number(offer.total_price)).toBeCloseTo(1.05, 2);
          expect(now.fare_source_code).not.toBe(offer.fare_source_code);
          // The new code carries the new price: booking it makes an order of that price.
          const booked = must(
            await post('/api/flights/air_booking/', { fare_source_code: now.fare_source_code, traveler_info: { contact, air_travelers: [traveller] } }),
            'book',
          );
          expect(booked.total_price).toBe(now.total_price);
        },
      };
    }
    case 'flight:air_refund': {
      const orderId = await flightOrder();
      must(await pay('flight', orderId), 'pay');
      return { creds, reply: await post('/api/flights/air_refund/', { order_id: orderId }, scenario), orderId: async () => orderId };
    }
    case 'visa:request': {
      // A product that refunds part of its service fee on a refusal.
      const visa = must(await get('/api/visa/9/'), 'visa');
      expect(visa.refund_on_rejection_percent).toBeGreaterThan(0);
      const reply = await post('/api/visa/request/', visaBody(9), scenario);
      const orderId = must(reply, 'request').id as number;
      must(await pay('visa', orderId), 'pay');
      return {
        creds,
        reply,
        orderId: async () => orderId,
        afterwards: async () => {
          expect(must(await get(`/api/visa/requests/${orderId}/`), 'application')).toMatchObject({ status: 'rejected' });
          const refunds = await stack.db
            .select()
            .from(ledgerEntries)
            .where(and(eq(ledgerEntries.orderId, orderId), eq(ledgerEntries.type, 'refund')));
          expect(refunds.map((r) => r.amount)).toEqual([Math.round((Number(visa.service_fee) * 100 * visa.refund_on_rejection_percent) / 100)]);
        },
      };
    }
    case 'residence:modify': {
      // A paid stay of two nights, made three; what the host holds is read from the simulator.
      const orderId = await orderOf.residence();
      must(await pay('residence', orderId), 'pay');
      const [stay] = await stack.db.select().from(reservations).where(eq(reservations.orderId, orderId));
      const longer = { check_in: stay!.checkIn, check_out: day(203 + 3 * n), guests: stay!.guests };
      const reply = await post('/api/residence/bookings/modify/', { reservation_id: stay!.id, ...longer }, scenario);
      return {
        creds,
        reply,
        orderId: async () => orderId,
        afterwards: async () => {
          const shown = must(await get(`/api/residence/reserve/detail/?reservation_id=${stay!.id}`), 'detail');
          const host = (await (await fetch(`${stack.simulatorUrl}/residence/bookings/${encodeURIComponent(shown.confirmation_number)}`)).json()) as {
            current: unknown;
          };
          const holds = reply.status === 200 ? longer : { check_in: stay!.checkIn, check_out: stay!.checkOut, guests: stay!.guests };
          expect(shown).toMatchObject({ ...holds, status: 'confirmed' });
          if (scenario !== 'supplier_reject') expect(host.current).toMatchObject(holds);
          const paid = Math.round(Number(shown.total_price) * 100);
          const wallet = must(await get('/api/partners/wallet/'), 'wallet');
          expect(Math.round(Number(wallet.balance) * 100)).toBe(500_000_000_000 - paid);
        },
      };
    }
    case 'B:hotel': {
      const found = await b('GET', `/v1/hotels/search?city=tehran&check_in=${day(30 + n)}&check_out=${day(31 + n)}`);
      const hotel = found.body.results[0];
      const reply = await b(
        'POST',
        '/v1/hotels/bookings',
        {
          hotel_id: hotel.hotel_id,
          room_id: hotel.rooms[0].room_id,
          guest_name: 'Sara Ahmadi',
          guest_email: 'sara@example.com',
          check_in: day(30 + n),
          check_out: day(31 + n),
        },
        { 'x-sandbox-scenario': scenario },
      );
      return {
        creds,
        reply,
        orderId: latestOrder,
        afterwards: async () => {
          // A booking that went through (at once or later) is listed active.
          if (reply.status >= 300) return;
          const listed = await b('GET', '/v1/hotels/bookings');
          expect(listed.body.results).toEqual([expect.objectContaining({ booking_id: reply.body.booking_id, status: 'active' })]);
        },
      };
    }
    case 'B:product': {
      const reply = await b(
        'POST',
        '/v1/products/orders',
        { product_id: 'ESIM-TR-10GB-15D', quantity: 1, delivery_address: { street: 'Valiasr 1', city: 'Tehran', country: 'IR', postal_code: '1415' } },
        { 'x-sandbox-scenario': scenario },
      );
      return { creds, reply, orderId: latestOrder };
    }
    default:
      throw new Error(`the test cannot play ${target}`);
  }
}

const orderRow = async (id: number) => (await stack.db.select().from(orders).where(eq(orders.id, id)))[0]!;
const until = async <T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
};

describe('the sandbox scenarios table', () => {
  it('has rows the test reads', () => {
    expect(ROWS.length).toBeGreaterThan(10);
  });

  it('refuses a scenario on a call that does not take it (visa_reject on pay)', async () => {
    const { creds } = await newPartner(stack, '0', '10000000');
    const res = await call(
      stack.app,
      'POST',
      '/api/partners/pay/',
      { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret, 'x-sandbox-scenario': 'visa_reject' },
      { order_id: 1 },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/x-sandbox-scenario/i);
  });

  it.each(ROWS.map((r) => [`${r.scenario} on ${r.on} (${r.file}:${r.line})`, r] as const))('%s', async (_, row) => {
    // Side by side; every run ends before the test does (a run left waiting would outlive the stack).
    const settled = await Promise.allSettled(
      row.targets.map(async (target) => {
        const played = await play(row.scenario, target);
        const { reply } = played;
        const shown = `${row.file}:${row.line} ${row.scenario} on ${target}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 400)}`;
        if (reply.status !== row.status) throw new Error(`${shown}\n  the table says ${row.status}`);
        for (const p of row.patterns) {
          const m = mismatch(parsePattern(p), reply.body);
          if (m) throw new Error(`${shown}\n  the table shows ${p}: ${m}`);
        }
        if (row.orderStatus) {
          const orderId = await played.orderId();
          const settleMs = SLOW_MS + 15_000;
          let order;
          if (row.parks) {
            await until(`${target}: parked`, settleMs, async () => {
              const inspected = await adminClient(stack).get(`/admin/orders/${orderId}`);
              return inspected.body.payment?.state?.step === 'needs_attention' ? true : undefined;
            });
            order = await orderRow(orderId);
          } else {
            order = await until(`${target}: order ${orderId} settled`, settleMs, async () => {
              const o = await orderRow(orderId);
              return o.status === 'processing' ? undefined : o;
            });
          }
          if (target === 'visa:request') {
            order = await until(`${target}: decided`, 15_000, async () => {
              const o = await orderRow(orderId);
              return o.status === row.orderStatus ? o : undefined;
            });
          }
          if (order.status !== row.orderStatus) throw new Error(`${shown}\n  the table says order ${row.orderStatus}, it is ${order.status}`);
          // What the money did, as the row's order status implies it.
          const moves = (await stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, orderId)).orderBy(asc(ledgerEntries.id))).map(
            (e) => e.type,
          );
          const wallet = (await call(stack.app, 'GET', '/api/partners/wallet/', { 'x-api-key': played.creds.api_key, 'x-api-secret': played.creds.api_secret }))
            .body.data;
          if (order.status === 'pending' || order.status === 'failed') {
            expect(moves).toEqual(['payment', 'refund']);
            expect(wallet.balance).toBe('5000000000.00');
          } else if (order.status === 'completed' || order.status === 'processing') {
            expect(moves).toEqual(['payment']);
          }
          if (target.startsWith('pay:') && (row.scenario === 'supplier_lost_response' || row.scenario === 'supplier_down')) {
            // The answer came from asking the supplier after the attempts, not from the booking request.
            expect(await scheduledActivities(stack, played.paymentId!)).toContain('lookupFinalization');
          }
          if (row.parks) {
            // The operator decides; the payment ends (a parked one would outlive the stack).
            const decided = await adminClient(stack).post(`/admin/orders/${orderId}/compensate`, { reason: 'sandbox scenarios row' });
            expect(decided.body.order).toMatchObject({ status: 'pending' });
          }
        }
        await played.afterwards?.();
      }),
    );
    for (const s of settled) if (s.status === 'rejected') throw s.reason;
  });
});
