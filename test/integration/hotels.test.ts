import { and, eq } from 'drizzle-orm';
import { hotelBookings, ledgerEntries, orders } from '../../src/db/schema';
import { newPartner as partnerWithWallet, type partnerClient } from '../support/clients';
import { eventTypesOf } from '../support/events';
import { recordHistory } from '../support/histories';
import { arm, disarmAll, faultInjector, undefinedColumn } from '../support/faults';
import { untilOrderStatus } from '../support/order-status';
import { type TestStack, useStack } from '../support/stack';
import { contact, day } from '../support/fixtures';

/** Hotels on Interface A (spec §4.3): search → check_rate → book → order → pay → booking_data → cancel_display → cancel. */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000, holdTtlMs: 60_000, prebookTtlMs: 30_000 });

type Api = ReturnType<typeof partnerClient>;
const newPartner = (credit_limit?: string, topup?: string) => partnerWithWallet(stack, credit_limit, topup ?? '100000000');

const TEHRAN = 1;
const ISTANBUL = 7;
/** A valid Iranian national id: 001234567 weighted 10..2 sums to 112, 112 mod 11 = 2, check digit 11 − 2 = 9. */
const NATIONAL_ID = '0012345679';
const iranian = { first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', national_id: NATIONAL_ID };
const foreigner = { first_name: 'Anna', last_name: 'Schmidt', nationality: 'DE', passport_number: 'C01X00T47' };

const stay = (from = 40, nights = 2) => ({ check_in: day(from), check_out: day(from + nights) });

async function search(api: Api, body: Record<string, unknown>) {
  return api.post('/api/hotel/search_hotels/', { ...stay(), nationality_id: 'IR', rooms: [{ adult_count: 2 }], ...body });
}

/** The first rate of the first hotel that matches. */
async function findRate(api: Api, opts: { refundable?: boolean; city_id?: number; hotel_id?: number; nationality_id?: string } = {}) {
  const res = await search(api, opts.hotel_id ? { hotel_id: opts.hotel_id } : { city_id: opts.city_id ?? TEHRAN, nationality_id: opts.nationality_id ?? 'IR' });
  expect(res.status).toBe(200);
  for (const hotel of res.body.data.results) {
    const rate = hotel.rates.find((r: { refundable: boolean }) => opts.refundable === undefined || r.refundable === opts.refundable);
    if (rate) return { hotel, rate };
  }
  throw new Error('no rate found');
}

async function bookAndOrder(api: Api, rateKey: string, guests: Array<Array<Record<string, string>>> = [[iranian]]) {
  const booked = await api.post('/api/hotel/book/', { rate_key: rateKey, guests, contact });
  expect(booked.status).toBe(200);
  const ordered = await api.post('/api/hotel/order/', { booking_id: booked.body.data.booking_id });
  expect(ordered.status).toBe(201);
  return { booking: booked.body.data, order: ordered.body.data };
}

const refundsOf = (orderId: number) =>
  stack.db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.orderId, orderId), eq(ledgerEntries.type, 'refund')));
const orderStatus = async (id: number) => (await stack.db.select().from(orders).where(eq(orders.id, id)))[0]!.status;

/** Tells the simulated hotel to have `count` rooms of every type left (its sandbox control endpoint). */
async function setAllotment(hotelId: number, count: number, simulatorUrl = stack.simulatorUrl) {
  for (const room_code of ['STD', 'DLX', 'FAM', 'STE']) {
    await fetch(`${simulatorUrl}/_control/hotels/allotment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hotel_id: hotelId, room_code, count }),
    });
  }
}

/** How many rates of one room type a hotel offers now (0 when the room is sold out). */
async function ratesOf(api: Api, hotelId: number, roomName: string): Promise<number> {
  const [hotel] = (await search(api, { hotel_id: hotelId })).body.data.results;
  return (hotel?.rates ?? []).filter((r: { room_name: string }) => r.room_name === roomName).length;
}

describe('search', () => {
  it('lists cities, filterable by name or IATA code', async () => {
    const { api } = await newPartner();
    const all = await api.get('/api/hotel/cities/');
    expect(all.body.data).toHaveLength(12);
    expect((await api.get('/api/hotel/cities/?search=ist')).body.data).toEqual([
      { id: ISTANBUL, name: 'Istanbul', iata_code: 'IST', country: 'TR', domestic: false },
    ]);
    expect((await api.get('/api/hotel/cities/?search=SYZ')).body.data[0].name).toBe('Shiraz');
  });

  it('prices rates for the whole stay and all rooms, cheaper for Iranians at domestic hotels', async () => {
    const { api } = await newPartner();
    const oneNight = await search(api, { city_id: TEHRAN, ...stay(40, 1) });
    const twoRooms = await search(api, { city_id: TEHRAN, ...stay(40, 1), rooms: [{ adult_count: 2 }, { adult_count: 2 }] });
    const foreign = await search(api, { city_id: TEHRAN, ...stay(40, 1), nationality_id: 'DE' });
    const first = oneNight.body.data.results[0];
    expect(oneNight.body.data.search_id).toEqual(expect.any(String));
    expect(first).toMatchObject({
      hotel_id: expect.any(Number),
      name: expect.any(String),
      stars: expect.any(Number),
      city_id: TEHRAN,
      address: expect.any(String),
    });
    expect(first.rates[0]).toMatchObject({
      rate_key: expect.any(String),
      room_name: expect.any(String),
      board: expect.stringMatching(/^(RO|BB|HB)$/),
      currency: 'IRT',
      refundable: expect.any(Boolean),
      rooms: 1,
    });
    const price = (res: typeof oneNight, hotelId: number, i = 0) =>
      Number(res.body.data.results.find((h: { hotel_id: number }) => h.hotel_id === hotelId).rates[i].total_price);
    expect(price(twoRooms, first.hotel_id)).toBeCloseTo(2 * price(oneNight, first.hotel_id), 2);
    expect(price(foreign, first.hotel_id)).toBeCloseTo(1.5 * price(oneNight, first.hotel_id), 0);
    expect(twoRooms.body.data.results[0].rates[0].rooms).toBe(2);
  });

  it.each([
    [{ check_in: day(-1), check_out: day(1) }, /^check_in: must be from today \(UTC\)/],
    [{ check_in: day(10), check_out: day(10) }, /^check_out: must be after check_in/],
    [{ check_in: day(10), check_out: day(41) }, /^check_out: a stay is at most 30 nights/],
    [{ check_in: '2026-02-30' }, /^check_in: /],
    [{ rooms: [] }, /^rooms: /],
    [{ rooms: Array(9).fill({ adult_count: 1 }) }, /^rooms: /],
    [{ rooms: [{ adult_count: 2, child_count: 1, child_ages: [] }] }, /^rooms\.0\.child_ages: /],
    [{ rooms: [{ adult_count: 2, child_count: 1, child_ages: [18] }] }, /^rooms\.0\.child_ages\.0: /],
    [{ rooms: [{ adult_count: 0 }] }, /^rooms\.0\.adult_count: /],
    [{ nationality_id: 'Iran' }, /^nationality_id: /],
    [{ hotel_id: 101 }, /^city_id: give exactly one of city_id and hotel_id/],
    [{ city_id: 999 }, /^city_id: /],
  ])('refuses %j with 400 naming the field', async (override, message) => {
    const { api } = await newPartner();
    const res = await search(api, { city_id: TEHRAN, ...override });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, error: expect.stringMatching(message) });
  });
});

describe('the whole chain', () => {
  it('searches, checks, books, orders, pays, reads, quotes and cancels with a full refund', async () => {
    const { api } = await newPartner('0', '100000000');
    const { rate } = await findRate(api, { refundable: true });

    const checked = await api.post('/api/hotel/check_rate/', { rate_key: rate.rate_key });
    expect(checked.status).toBe(200);
    expect(checked.body.data).toMatchObject({ total_price: rate.total_price, price_changed: false, refundable: true, expires_at: expect.any(String) });
    expect(checked.body.data.cancellation_policy.length).toBeGreaterThan(0);

    const { booking, order } = await bookAndOrder(api, rate.rate_key);
    expect(booking).toMatchObject({ status: 'held', total_price: rate.total_price, guests: [[expect.objectContaining({ last_name: 'Ahmadi' })]] });
    expect(Date.parse(booking.expires_at)).toBeGreaterThan(Date.now());
    expect(order).toMatchObject({ service: 'hotel', status: 'pending', total_price: rate.total_price, booking_id: booking.booking_id });
    const listed = await api.get('/api/partners/orders/');
    expect(listed.body.data.results[0]).toMatchObject({ id: order.id, service: 'hotel', status: 'pending' });

    const paid = await api.post('/api/partners/pay/', { order_id: order.id, idempotency_key: `hotel-${order.id}` });
    expect(paid.status).toBe(200);
    const price = Number(rate.total_price);
    expect(paid.body.data).toMatchObject({ order_status: 'completed', amount: price, new_balance: 100_000_000 - price });

    const data = await api.post('/api/hotel/booking_data/', { order_id: order.id });
    expect(data.body.data.order).toMatchObject({ id: order.id, status: 'completed' });
    expect(data.body.data.booking).toMatchObject({ status: 'confirmed', confirmation_number: expect.stringMatching(/^CNF-/), check_in: stay().check_in });
    expect(data.body.data.order.supplier_ref).toBe(data.body.data.booking.confirmation_number);

    const quote = await api.post('/api/hotel/cancel_display/', { order_id: order.id });
    expect(quote.body.data).toMatchObject({
      order_id: order.id,
      penalty: '0.00',
      refund_amount: rate.total_price,
      currency: 'IRT',
      quote_id: expect.any(String),
    });

    const cancelled = await api.post('/api/hotel/cancel/', { order_id: order.id, quote_id: quote.body.data.quote_id });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({
      order_id: order.id,
      status: 'cancelled',
      penalty: '0.00',
      refund_amount: rate.total_price,
      ledger_id: expect.any(Number),
    });
    expect(await api.wallet()).toMatchObject({ balance: '100000000.00' });
    const ledger = (await api.get('/api/partners/ledger/')).body.data.results;
    expect(ledger[0]).toMatchObject({ type: 'refund', direction: 'credit', amount: rate.total_price, order: order.id, balance_after: '100000000.00' });
    expect((await api.post('/api/hotel/booking_data/', { order_id: order.id })).body.data.booking.status).toBe('cancelled');

    const again = await api.post('/api/hotel/cancel/', { order_id: order.id });
    expect(again.status).toBe(400);
    expect(again.body.error).toMatch(/already cancelled/);
    expect(await refundsOf(order.id)).toHaveLength(1);
    expect(await eventTypesOf(api, order.id)).toEqual(['order.processing', 'order.completed', 'order.cancelled']);
    await recordHistory(
      stack,
      `cancel:p${(await stack.db.select().from(orders).where(eq(orders.id, order.id)))[0]!.partnerId}:order:${order.id}`,
      'hotel-cancel',
    );
  });

  it('keeps the whole price as penalty on a non-refundable rate', async () => {
    const { api } = await newPartner();
    const { rate } = await findRate(api, { refundable: false, city_id: ISTANBUL, nationality_id: 'DE' });
    const { order } = await bookAndOrder(api, rate.rate_key, [[foreigner]]);
    expect((await api.post('/api/partners/pay/', { order_id: order.id })).status).toBe(200);
    const quote = await api.post('/api/hotel/cancel_display/', { order_id: order.id });
    expect(quote.body.data).toMatchObject({ penalty: rate.total_price, refund_amount: '0.00' });
    const before = await api.wallet();
    const cancelled = await api.post('/api/hotel/cancel/', { order_id: order.id });
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', refund_amount: '0.00', ledger_id: null });
    expect(await api.wallet()).toMatchObject({ balance: before.balance });
    expect(await refundsOf(order.id)).toHaveLength(0);
  });

  it('prebooks without names, then books the prebooking with guests', async () => {
    const { api } = await newPartner();
    const { rate } = await findRate(api);
    const pre = await api.post('/api/hotel/prebook/', { rate_key: rate.rate_key });
    expect(pre.status).toBe(200);
    expect(pre.body.data).toMatchObject({ status: 'prebooked', guests: [] });
    const early = await api.post('/api/hotel/order/', { booking_id: pre.body.data.booking_id });
    expect(early.status).toBe(400);
    expect(early.body.error).toMatch(/no guests yet/);
    const booked = await api.post('/api/hotel/book/', { booking_id: pre.body.data.booking_id, guests: [[iranian]], contact });
    expect(booked.status).toBe(200);
    expect(booked.body.data).toMatchObject({ booking_id: pre.body.data.booking_id, status: 'held' });
    expect(Date.parse(booked.body.data.expires_at)).toBeGreaterThan(Date.parse(pre.body.data.expires_at));
    expect((await api.post('/api/hotel/order/', { booking_id: pre.body.data.booking_id })).status).toBe(201);
    const twice = await api.post('/api/hotel/order/', { booking_id: pre.body.data.booking_id });
    expect(twice.status).toBe(400);
    expect(twice.body.error).toMatch(/already order/);
  });

  it('shows a moved price on check_rate with the price_changed scenario', async () => {
    const { api } = await newPartner();
    const { rate } = await findRate(api);
    const res = await api.post('/api/hotel/check_rate/', { rate_key: rate.rate_key }, { 'X-Sandbox-Scenario': 'price_changed' });
    expect(res.body.data.price_changed).toBe(true);
    expect(Number(res.body.data.total_price)).toBeGreaterThan(Number(rate.total_price));
    expect(res.body.data.previous_price).toBe(rate.total_price);
  });

  it('refuses a tampered rate key with 400', async () => {
    const { api } = await newPartner();
    const res = await api.post('/api/hotel/check_rate/', { rate_key: 'not-a-rate-key' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^rate_key: /);
  });
});

describe('guests', () => {
  it.each([
    [[[{ ...iranian, national_id: undefined }]], /^guests\.0\.0\.national_id: is required/],
    [[[{ ...iranian, national_id: '0012345678' }]], /^guests\.0\.0\.national_id: is not a valid/],
    [[[{ ...iranian, national_id: '1111111111' }]], /^guests\.0\.0\.national_id: is not a valid/],
    [[[{ ...foreigner, passport_number: undefined }]], /^guests\.0\.0\.passport_number: is required/],
    [[[iranian], [iranian]], /^guests: give one list of guests per room/],
    [[[iranian, iranian, iranian]], /^guests\.0: room 1 takes 1 to 2 guest/],
    [[[]], /^guests\.0: each room needs at least one guest/],
  ])('refuses %j with 400 and books nothing', async (guests, message) => {
    const { api } = await newPartner();
    const { rate } = await findRate(api);
    const res = await api.post('/api/hotel/book/', { rate_key: rate.rate_key, guests, contact });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(await stack.db.select().from(hotelBookings).where(eq(hotelBookings.rateKey, rate.rate_key))).toHaveLength(0);
  });
});

describe('money and failures', () => {
  it('reverses the debit when the hotel rejects the confirmation', async () => {
    const { api } = await newPartner();
    const { rate } = await findRate(api);
    const { order } = await bookAndOrder(api, rate.rate_key);
    const before = await api.wallet();
    const res = await api.post('/api/partners/pay/', { order_id: order.id }, { 'X-Sandbox-Scenario': 'supplier_reject' });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatch(/reversed/);
    expect(await api.wallet()).toMatchObject({ balance: before.balance });
    expect(await orderStatus(order.id)).toBe('pending');
    expect((await api.post('/api/partners/pay/', { order_id: order.id })).status).toBe(200);
    expect(await eventTypesOf(api, order.id)).toEqual(['order.processing', 'order.payment_reversed', 'order.processing', 'order.completed']);
  });

  it('keeps the booking and the money when the hotel refuses the cancellation (502), and cancels on a later try', async () => {
    const { api } = await newPartner();
    const { rate } = await findRate(api, { refundable: true });
    const { order } = await bookAndOrder(api, rate.rate_key);
    await api.post('/api/partners/pay/', { order_id: order.id });
    const paid = await api.wallet();
    const refused = await api.post('/api/hotel/cancel/', { order_id: order.id }, { 'X-Sandbox-Scenario': 'cancel_reject' });
    expect(refused.status).toBe(502);
    // Said once: the sandbox hotel's reason only repeats what the engine says (was "… refused the cancellation (the hotel refused the cancellation)").
    expect(refused.body).toEqual({ ok: false, error: 'the hotel refused the cancellation; nothing was refunded and the booking stands' });
    expect(await orderStatus(order.id)).toBe('completed');
    expect(await api.wallet()).toMatchObject({ balance: paid.balance });
    const retried = await api.post('/api/hotel/cancel/', { order_id: order.id });
    expect(retried.status).toBe(200);
    expect(await refundsOf(order.id)).toHaveLength(1);
  });

  it('releases an unpaid hold on cancel without moving money, and gives the room back', async () => {
    const { api } = await newPartner();
    await setAllotment(205, 1);
    const { rate } = await findRate(api, { hotel_id: 205 });
    const { order } = await bookAndOrder(api, rate.rate_key);
    expect(await ratesOf(api, 205, rate.room_name)).toBe(0);
    const before = await api.wallet();
    const res = await api.post('/api/hotel/cancel/', { order_id: order.id });
    expect(res.body.data).toMatchObject({ status: 'cancelled', refund_amount: '0.00', ledger_id: null });
    expect(await api.wallet()).toEqual(before);
    expect(await ratesOf(api, 205, rate.room_name)).toBeGreaterThan(0);
    expect(await eventTypesOf(api, order.id)).toEqual(['order.cancelled']);
  });

  it('books the last room once when two partners race for it', async () => {
    const { api: a } = await newPartner();
    const { api: b } = await newPartner();
    await setAllotment(306, 1);
    const { rate } = await findRate(a, { hotel_id: 306 });
    const replies = await Promise.all([a, b].map((api) => api.post('/api/hotel/book/', { rate_key: rate.rate_key, guests: [[iranian]], contact })));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(replies.find((r) => r.status === 400)!.body.error).toMatch(/sold out|no longer available/);
  });

  it('reads a booking by its booking_id before it has an order (a hold book answered `placing` is followed so), and after', async () => {
    const { api } = await newPartner();
    const { rate } = await findRate(api);
    const pre = await api.post('/api/hotel/prebook/', { rate_key: rate.rate_key });
    expect(pre.status).toBe(200);
    const id = pre.body.data.booking_id;
    const unordered = await api.post('/api/hotel/booking_data/', { booking_id: id });
    expect(unordered.status).toBe(200);
    expect(unordered.body.data).toEqual({ order: null, booking: expect.objectContaining({ booking_id: id, status: 'prebooked', order_id: null }) });

    expect((await api.post('/api/hotel/book/', { booking_id: id, guests: [[iranian]], contact })).status).toBe(200);
    const ordered = await api.post('/api/hotel/order/', { booking_id: id });
    const read = await api.post('/api/hotel/booking_data/', { booking_id: id });
    expect(read.body.data).toMatchObject({ order: { id: ordered.body.data.id, status: 'pending' }, booking: { booking_id: id, status: 'held' } });
    expect((await api.post('/api/hotel/booking_data/', { order_id: ordered.body.data.id })).body.data).toEqual(read.body.data);

    for (const body of [{}, { order_id: ordered.body.data.id, booking_id: id }]) {
      const refused = await api.post('/api/hotel/booking_data/', body);
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ ok: false, error: expect.stringMatching(/^order_id: give exactly one of order_id and booking_id/) });
    }
  });

  it('hides another partner’s bookings and orders (404)', async () => {
    const { api: owner } = await newPartner();
    const { api: other } = await newPartner();
    const { rate } = await findRate(owner);
    const { booking, order } = await bookAndOrder(owner, rate.rate_key);
    for (const path of ['/api/hotel/booking_data/', '/api/hotel/cancel_display/', '/api/hotel/cancel/']) {
      const res = await other.post(path, { order_id: order.id });
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
    expect((await other.post('/api/hotel/booking_data/', { booking_id: booking.booking_id })).status).toBe(404);
    expect((await other.post('/api/hotel/order/', { booking_id: booking.booking_id })).status).toBe(404);
    expect((await other.post('/api/hotel/book/', { booking_id: booking.booking_id, guests: [[iranian]], contact })).status).toBe(404);
    expect(await orderStatus(order.id)).toBe('pending');
  });

  it('refuses a quote of another order or an unknown quote', async () => {
    const { api } = await newPartner();
    const { rate } = await findRate(api, { refundable: true });
    const first = await bookAndOrder(api, rate.rate_key);
    const second = await bookAndOrder(api, (await findRate(api, { refundable: true, city_id: 2 })).rate.rate_key);
    const quote = await api.post('/api/hotel/cancel_display/', { order_id: first.order.id });
    const wrong = await api.post('/api/hotel/cancel/', { order_id: second.order.id, quote_id: quote.body.data.quote_id });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatch(/^quote_id: /);
    expect((await api.post('/api/hotel/cancel/', { order_id: first.order.id, quote_id: 'cq_nope' })).status).toBe(400);
  });
});

describe('durable holds', () => {
  it('expires an unpaid hold at its deadline: the order becomes expired, the room comes back, paying is 400', async () => {
    const { startStack } = await import('../support/stack');
    const short = await startStack({ holdTtlMs: 3000, prebookTtlMs: 2000 });
    try {
      const { api } = await partnerWithWallet(short, '0', '100000000');
      await setAllotment(410, 1, short.simulatorUrl);
      const { rate } = await findRate(api, { hotel_id: 410 });
      const booked = await api.post('/api/hotel/book/', { rate_key: rate.rate_key, guests: [[iranian]], contact });
      const ordered = await api.post('/api/hotel/order/', { booking_id: booked.body.data.booking_id });
      expect([booked.body, ordered.body]).toEqual([expect.objectContaining({ ok: true }), expect.objectContaining({ ok: true })]);
      const orderId = ordered.body.data.id;
      expect(await ratesOf(api, 410, rate.room_name)).toBe(0);

      await untilOrderStatus(short.db, orderId, 'expired');
      expect((await api.get('/api/partners/orders/')).body.data.results[0]).toMatchObject({ id: orderId, status: 'expired' });
      expect((await api.post('/api/hotel/booking_data/', { order_id: orderId })).body.data.booking.status).toBe('expired');
      expect(await ratesOf(api, 410, rate.room_name)).toBeGreaterThan(0);
      await recordHistory(short, `hotel-hold-expiry:b${booked.body.data.booking_id}`, 'hotel-hold-expiry');
      await recordHistory(short, `hotel-hold:b${booked.body.data.booking_id}:create`, 'hotel-hold-place');

      const pay = await api.post('/api/partners/pay/', { order_id: orderId });
      expect(pay.status).toBe(400);
      expect(pay.body.error).toMatch(/expired/);
      expect(await api.wallet()).toMatchObject({ balance: '100000000.00' });
      expect(await eventTypesOf(api, orderId)).toEqual(['order.expired']);
    } finally {
      await short.close();
    }
  });

  it('rides out a deadline check that fails past its tries: tried again later, the hold expires all the same', async () => {
    const { startStack } = await import('../support/stack');
    const short = await startStack({ holdTtlMs: 2000, prebookTtlMs: 2000, activityInterceptors: [faultInjector] });
    try {
      const { api } = await partnerWithWallet(short, '0', '100000000');
      const { rate } = await findRate(api, { hotel_id: 410 });
      const booked = await api.post('/api/hotel/book/', { rate_key: rate.rate_key, guests: [[iranian]], contact });
      const orderId = (await api.post('/api/hotel/order/', { booking_id: booked.body.data.booking_id })).body.data.id;
      // The database refuses the expiry once (a failure that is no answer, as a bad deploy's would be).
      const fault = arm({ step: 'expireHotelHold', error: undefinedColumn, times: 1 });

      await untilOrderStatus(short.db, orderId, 'expired', 40_000);
      expect(fault.attempts).toBe(1);
      const workflowId = `hotel-hold-expiry:b${booked.body.data.booking_id}`;
      const { events } = await short.client.workflow.getHandle(workflowId).fetchHistory();
      const tried = events!.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'expireHotelHold');
      expect(tried).toHaveLength(2);
      await expect(short.client.workflow.getHandle(workflowId).result()).resolves.toEqual({ expired: true });
      await recordHistory(short, workflowId, 'hotel-hold-expiry-ridden-out');
    } finally {
      disarmAll();
      await short.close();
    }
  });
});
