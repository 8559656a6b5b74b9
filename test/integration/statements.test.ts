import { inArray, sql } from 'drizzle-orm';
import { toCommand } from '../../src/cli/admin';
import { dayText, rangeText } from '../../src/domain/money/statements';
import { ledgerEntries } from '../../src/db/schema';
import { SEED_PROPERTIES } from '../../src/db/seed/residence-data';
import { SEED_TOURS } from '../../src/db/seed/tours-data';
import { SEED_VISAS } from '../../src/db/seed/visa-data';
import { adminClient, newPartner, settled, type PartnerCredentials } from '../support/clients';
import { contact, day, traveller, visaApplication } from '../support/fixtures';
import { useStack, type TestStack } from '../support/stack';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { PDFParse } = require('pdf-parse') as { PDFParse: new (o: { data: Uint8Array }) => { getText(): Promise<{ text: string }> } };

/**
 * GET /api/partners/statements/: a partner's statement for a period, as JSON, CSV and PDF,
 * read from its ledger; and the operators' exposure report (GET /admin/reports/exposure).
 */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

type Partner = Awaited<ReturnType<typeof newPartner>>;

const STATEMENTS = '/api/partners/statements/';
const minor = (s: string) => {
  expect(s).toMatch(/^-?\d+\.\d{2}$/);
  const [whole, frac] = s.replace('-', '').split('.');
  const n = Number(whole) * 100 + Number(frac);
  return s.startsWith('-') ? -n : n;
};
/** The moment `offset` days from now, at noon UTC: away from midnight, whatever the hour the test runs. */
const noon = (offset: number) => new Date(`${day(offset)}T12:00:00.000Z`);

/** RFC 4180, as much as the statement writes: quoted fields with doubled quotes, CRLF rows. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = '';
  };
  const endRow = () => {
    endField();
    rows.push(row);
    row = [];
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') endField();
    else if (ch === '\r' && text[i + 1] === '\n') {
      endRow();
      i++;
    } else field += ch;
  }
  if (field !== '' || row.length) endRow();
  return rows;
}

async function payProduct(p: Partner, opts: { scenario?: 'supplier_reject' } = {}) {
  const order = await p.api.productOrder({ quantity: 2 });
  const res = await p.client.POST('/partners/pay/', {
    params: { header: opts.scenario ? { 'x-sandbox-scenario': opts.scenario } : {} },
    body: { product_order_id: order.id, idempotency_key: `product-${order.id}` },
  });
  expect(res.response.status).toBe(opts.scenario ? 502 : 200);
  return order;
}

async function payVisa(p: Partner) {
  const visa = SEED_VISAS.find((v) => v.max_stay_days >= 7)!;
  const req = await p.client.POST('/visa/request/', {
    body: visaApplication(SEED_VISAS.indexOf(visa) + 1),
  });
  expect(req.response.status).toBe(201);
  const paid = await p.client.POST('/partners/pay/', { body: { order_id: req.data!.data.id, idempotency_key: `visa-${req.data!.data.id}` } });
  expect(settled(paid)).toBeDefined();
  return { orderId: req.data!.data.id, country: visa.country_name };
}

/** A refundable hotel booked, paid and cancelled: a payment and its refund. */
async function payAndCancelHotel(p: Partner) {
  const search = await p.client.POST('/hotel/search_hotels/', {
    body: { check_in: day(40), check_out: day(42), nationality_id: 'IR', rooms: [{ adult_count: 2 }], city_id: 1 },
  });
  const hotel = search.data!.data.results.find((h) => h.rates.some((r) => r.refundable))!;
  const rate = hotel.rates.find((r) => r.refundable)!;
  const guest = { first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', national_id: '0012345679' };
  const booked = await p.client.POST('/hotel/book/', { body: { rate_key: rate.rate_key, guests: [[guest, { ...guest, first_name: 'Ali' }]], contact } });
  expect(booked.response.status).toBe(200);
  const ordered = await p.client.POST('/hotel/order/', { body: { booking_id: booked.data!.data.booking_id } });
  expect(ordered.response.status).toBe(201);
  const orderId = ordered.data!.data.id;
  expect(settled(await p.client.POST('/partners/pay/', { body: { order_id: orderId, idempotency_key: `hotel-${orderId}` } }))).toBeDefined();
  const quote = await p.client.POST('/hotel/cancel_display/', { body: { order_id: orderId } });
  const cancelled = await p.client.POST('/hotel/cancel/', { body: { order_id: orderId, quote_id: quote.data!.data.quote_id } });
  expect(cancelled.response.status).toBe(200);
  return { orderId, bookingId: booked.data!.data.booking_id, hotelName: hotel.name };
}

/** Moves the ledger rows of these ids to a moment in the past (the history a statement reads). */
async function writtenAt(ids: number[], at: Date) {
  await stack.db.update(ledgerEntries).set({ createdAt: at }).where(inArray(ledgerEntries.id, ids));
}

const idsOf = async (partnerId: number) =>
  (
    await stack.db
      .select({ id: ledgerEntries.id })
      .from(ledgerEntries)
      .where(sql`${ledgerEntries.partnerId} = ${partnerId}`)
      .orderBy(ledgerEntries.id)
  ).map((r) => r.id);

describe('partner statements', () => {
  let p: Partner;
  let other: Partner;
  let productOrder: number;
  let rejectedOrder: number;
  let visa: { orderId: number; country: string };
  let hotel: { orderId: number; bookingId: number; hotelName: string };
  /** The ledger rows by when they are dated: ten days ago, five days ago, today. */
  const days = { old: [] as number[], middle: [] as number[], today: [] as number[] };

  beforeAll(async () => {
    p = await newPartner(stack, '1000000', '50000000');
    other = await newPartner(stack, '0', '7000000');
    days.old = await idsOf(p.creds.partner_id); // the credit grant and the first top-up
    productOrder = (await payProduct(p)).id;
    rejectedOrder = (await payProduct(p, { scenario: 'supplier_reject' })).id;
    days.middle = (await idsOf(p.creds.partner_id)).filter((id) => !days.old.includes(id));
    visa = await payVisa(p);
    hotel = await payAndCancelHotel(p);
    expect((await adminClient(stack).post(`/admin/partners/${p.creds.partner_id}/topup`, { amount: '2500000', note: 'wire 7781' })).status).toBe(200);
    await payProduct(other);
    days.today = (await idsOf(p.creds.partner_id)).filter((id) => !days.old.includes(id) && !days.middle.includes(id));
    await writtenAt(days.old, noon(-10));
    await writtenAt(days.middle, noon(-5));
    await writtenAt(await idsOf(other.creds.partner_id), noon(-5));
  });

  const statement = async (who: Partner, from: string, to: string) => {
    const res = await who.api.get(`${STATEMENTS}?from=${from}&to=${to}`);
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    return res.body.data;
  };

  it('reads the whole history: opening 0, every movement but the credit grant, closing = the wallet', async () => {
    const s = await statement(p, day(-10), day(0));
    const wallet = await p.api.wallet();
    expect(s).toMatchObject({ partner: 'Test Agency', currency: 'IRT', from: day(-10), to: day(0), opening_balance: '0.00', credit_limit: '1000000.00' });
    expect(s.closing_balance).toBe(wallet.balance);
    const ids = s.movements.map((m: { entry_id: number }) => m.entry_id);
    expect(ids).toEqual([...days.old, ...days.middle, ...days.today].filter((id) => id !== days.old[0]));
    expect(s.movements.every((m: { type: string }) => m.type !== 'credit_grant')).toBe(true);

    // Opening + movements = closing, line by line, and each line's balance is the ledger's.
    let balance = minor(s.opening_balance);
    let debits = 0;
    let credits = 0;
    const ledger = (await p.client.GET('/partners/ledger/')).data!.data.results;
    for (const m of s.movements) {
      balance += m.direction === 'credit' ? minor(m.amount) : -minor(m.amount);
      if (m.direction === 'credit') credits += minor(m.amount);
      else debits += minor(m.amount);
      expect(minor(m.balance_after)).toBe(balance);
      const row = ledger.find((r) => r.id === m.entry_id);
      if (row) expect(row.balance_after).toBe(m.balance_after);
    }
    expect(balance).toBe(minor(s.closing_balance));
    expect([minor(s.total_debits), minor(s.total_credits)]).toEqual([debits, credits]);
  });

  it('describes each movement as an agent knows it', async () => {
    const s = await statement(p, day(-10), day(0));
    const lines = s.movements as Array<{ type: string; order_id: number | null; service: string | null; description: string; date: string }>;
    const of = (orderId: number) => lines.filter((l) => l.order_id === orderId);
    expect(lines[0]).toMatchObject({ type: 'topup', order_id: null, service: null, date: day(-10) });
    expect(lines[0]!.description).toMatch(/^Top-up/);
    expect(of(productOrder)).toEqual([
      expect.objectContaining({ type: 'payment', service: 'product', description: expect.stringMatching(/^Payment: Products: .+ x 2$/) }),
    ]);
    const [debit, reversal] = of(rejectedOrder);
    expect(debit).toMatchObject({ type: 'payment', service: 'product', date: day(-5) });
    expect(reversal!.description).toMatch(/^Reversal of payment \d+: Products: .+ x 2$/);
    expect(of(visa.orderId)).toEqual([
      expect.objectContaining({ type: 'payment', service: 'visa', description: expect.stringContaining(`Visa ${visa.country}`) }),
    ]);
    expect(of(visa.orderId)[0]!.description).toContain('for Reza Karimi');
    const [paid, refunded] = of(hotel.orderId);
    const stay = new RegExp(`${hotel.hotelName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*, \\d+-\\d+ \\w+ \\d{4}|\\d+ \\w+-\\d+ \\w+ \\d{4}`);
    expect(paid!.description).toMatch(/^Payment: Hotel /);
    expect(paid!.description).toMatch(stay);
    expect(paid!.description).toContain(`2 guests (booking ${hotel.bookingId})`);
    expect(refunded).toMatchObject({ type: 'refund', service: 'hotel', description: expect.stringMatching(/^Refund: Hotel /) });
    expect(lines.at(-1)).toMatchObject({ type: 'topup', description: 'Top-up: wire 7781', date: day(0) });
  });

  it('describes flights, tours and stays by route, tour, place and dates', async () => {
    const t = await newPartner(stack, '0', '900000000');
    const pay = async (orderId: number) =>
      expect(settled(await t.client.POST('/partners/pay/', { body: { order_id: orderId, idempotency_key: `pay-${orderId}` } }))).toBeDefined();

    const search = await t.client.POST('/flights/search_flights/', {
      body: { origin: 'THR', destination: 'MHD', departure_date_time: `${day(30)}T00:00:00Z`, adult_count: 1, cabin_type: 'economy', air_trip_type: 'one_way' },
    });
    const fare = search.data!.data.results[0]!;
    const flight = await t.client.POST('/flights/air_booking/', {
      body: { fare_source_code: fare.fare_source_code, traveler_info: { contact, air_travelers: [traveller] } },
    });
    expect(flight.response.status).toBe(201);
    await pay(flight.data!.data.id);

    const tour = SEED_TOURS.find((x) => x.code === 'TR-IST-5D')!;
    const tourId = SEED_TOURS.indexOf(tour) + 1;
    const departure = (await t.client.GET('/tours/{id}/', { params: { path: { id: String(tourId) } } })).data!.data.departures[0]!;
    const pre = await t.client.POST('/tours/prebook/', {
      body: { tour_id: tourId, departure_id: departure.id, passengers: [traveller, { ...traveller, first_name: 'Mina' }] },
    });
    expect(pre.response.status).toBe(200);
    const tourOrder = await t.client.POST('/tours/finalize/', { body: { prebook_id: pre.data!.data.prebook_id } });
    await pay(tourOrder.data!.data.id);

    const property = SEED_PROPERTIES.find((x) => x.code === 'RS-RMSR-02')!;
    const held = await t.api.post('/api/residence/reserve/', {
      property_id: SEED_PROPERTIES.indexOf(property) + 1,
      check_in: day(50),
      check_out: day(52),
      guests: 3,
      lead_guest: { first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', national_id: '0012345679', phone_number: '+989121234567' },
    });
    expect(held.status).toBe(200);
    const stayOrder = await t.api.post('/api/residence/reserve/book/', { reservation_id: held.body.data.reservation_id });
    await pay(stayOrder.body.data.id);

    const s = await statement(t, day(0), day(0));
    const text = (orderId: number) => s.movements.find((m: { order_id: number | null }) => m.order_id === orderId)?.description;
    const pnr = flight.data!.data.pnr;
    expect(text(flight.data!.data.id)).toBe(`Payment: Flight THR-MHD ${dayText(day(30))}, PNR ${pnr}, 1 traveller`);
    expect(text(tourOrder.data!.data.id)).toBe(
      `Payment: Tour ${tour.title}, departing ${dayText(departure.start_date)}, 2 seats (prebook ${pre.data!.data.prebook_id})`,
    );
    expect(text(stayOrder.body.data.id)).toBe(
      `Payment: ${property.name}, ${property.city}, ${rangeText(day(50), day(52))}, 3 guests (reservation ${held.body.data.reservation_id})`,
    );
  });

  it('reads a period in the middle: the balance before it, its movements only, the balance after', async () => {
    const s = await statement(p, day(-6), day(-4));
    expect(s.opening_balance).toBe('50000000.00');
    expect(s.movements.map((m: { entry_id: number }) => m.entry_id)).toEqual(days.middle);
    const moved = s.movements.reduce((n: number, m: { direction: string; amount: string }) => n + (m.direction === 'credit' ? 1 : -1) * minor(m.amount), 0);
    expect(minor(s.closing_balance)).toBe(50_000_000_00 + moved);
    // The reversal gave the rejected payment back: the period moved only the product paid.
    expect(moved).toBe(-minor(s.movements[0].amount));

    const quiet = await statement(p, day(-3), day(-1));
    expect(quiet).toMatchObject({ opening_balance: s.closing_balance, closing_balance: s.closing_balance, movements: [] });
    const before = await statement(p, day(-30), day(-11));
    expect(before).toMatchObject({ opening_balance: '0.00', closing_balance: '0.00', movements: [], credit_limit: '0.00' });
  });

  it('never shows another partner’s rows', async () => {
    const mine = await statement(p, day(-10), day(0));
    const theirs = await statement(other, day(-10), day(0));
    const otherIds = await idsOf(other.creds.partner_id);
    expect(mine.movements.some((m: { entry_id: number }) => otherIds.includes(m.entry_id))).toBe(false);
    expect(theirs.movements.map((m: { entry_id: number }) => m.entry_id)).toEqual(otherIds);
    expect(theirs.closing_balance).toBe((await other.api.wallet()).balance);
  });

  it('downloads the statement as CSV that parses back to the same numbers', async () => {
    const json = await statement(p, day(-10), day(0));
    const res = await stack.app.request(`http://engine.test${STATEMENTS}?from=${day(-10)}&to=${day(0)}&format=csv`, {
      headers: { 'x-api-key': p.creds.api_key, 'x-api-secret': p.creds.api_secret },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="statement-${p.creds.partner_id}-${day(-10)}-to-${day(0)}.csv"`);
    const [header, ...rows] = parseCsv(await res.text());
    expect(header).toEqual(['date', 'entry_id', 'type', 'description', 'order_id', 'service', 'debit', 'credit', 'balance', 'currency', 'by']);
    const cell = (row: string[], name: string) => row[header!.indexOf(name)]!;
    const [opening, ...rest] = rows;
    const closing = rest.pop()!;
    expect(cell(opening!, 'type')).toBe('opening_balance');
    expect(cell(opening!, 'balance')).toBe(json.opening_balance);
    expect(cell(closing, 'type')).toBe('closing_balance');
    expect(cell(closing, 'balance')).toBe(json.closing_balance);
    expect(rest).toHaveLength(json.movements.length);
    let balance = minor(cell(opening!, 'balance'));
    rest.forEach((row, i) => {
      const m = json.movements[i];
      expect([Number(cell(row, 'entry_id')), cell(row, 'description'), cell(row, 'balance')]).toEqual([m.entry_id, m.description, m.balance_after]);
      // Who moved it: the partner's own connection for what it paid, an operator for a top-up.
      expect(cell(row, 'by')).toBe(m.actor ? `${m.actor.type} ${m.actor.name}` : '');
      if (m.type === 'payment') expect(m.actor).toEqual({ type: 'connection', id: expect.any(Number), name: 'Interface A' });
      balance += cell(row, 'credit') ? minor(cell(row, 'credit')) : -minor(cell(row, 'debit'));
      expect(minor(cell(row, 'balance'))).toBe(balance);
    });
    expect(balance).toBe(minor(cell(closing, 'balance')));
    expect([cell(closing, 'debit'), cell(closing, 'credit')]).toEqual([json.total_debits, json.total_credits]);
  });

  it('downloads the statement as a PDF whose text holds the partner, the period, the balances and every description', async () => {
    const json = await statement(p, day(-10), day(0));
    const res = await stack.app.request(`http://engine.test${STATEMENTS}?from=${day(-10)}&to=${day(0)}&format=pdf`, {
      headers: { 'x-api-key': p.creds.api_key, 'x-api-secret': p.creds.api_secret },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="statement-${p.creds.partner_id}-${day(-10)}-to-${day(0)}.pdf"`);
    const data = new Uint8Array(await res.arrayBuffer());
    expect(Buffer.from(data.subarray(0, 5)).toString()).toBe('%PDF-');
    const text = (await new PDFParse({ data }).getText()).text.replace(/\s+/g, ' ');
    for (const expected of [
      'Statement of account',
      'Test Agency',
      `${day(-10)} to ${day(0)}`,
      'IRT',
      json.opening_balance,
      json.closing_balance,
      json.credit_limit,
    ]) {
      expect(text).toContain(expected);
    }
    for (const m of json.movements) expect(text).toContain(m.description.replace(/\s+/g, ' '));
  });

  it('breaks a long statement over pages, the column titles on each', async () => {
    const busy = await newPartner(stack, '0', '1');
    for (let i = 0; i < 70; i++)
      await adminClient(stack).post(`/admin/partners/${busy.creds.partner_id}/topup`, { amount: `${i + 1}.00`, note: `deposit number ${i + 1}` });
    const res = await stack.app.request(`http://engine.test${STATEMENTS}?from=${day(0)}&to=${day(0)}&format=pdf`, {
      headers: { 'x-api-key': busy.creds.api_key, 'x-api-secret': busy.creds.api_secret },
    });
    const result = await new PDFParse({ data: new Uint8Array(await res.arrayBuffer()) }).getText();
    const text = result.text.replace(/\s+/g, ' ');
    expect(text).toMatch(/page 1 of [2-9]/);
    expect(text.match(/Description/g)!.length).toBeGreaterThan(1);
    for (let i = 1; i <= 70; i++) expect(text).toContain(`Top-up: deposit number ${i} `);
    expect(text).toContain('Closing balance');
  });

  it.each([
    ['no dates', '', /from/],
    ['no to', `from=${day(-1)}`, /to/],
    ['a date that does not exist', 'from=2026-02-30&to=2026-03-02', /from: must be a real date/],
    ['a date in another shape', 'from=01/12/2026&to=2026-12-31', /from: must be a date as YYYY-MM-DD/],
    ['from after to', 'from=2026-12-02&to=2026-12-01', /to: must not be before from/],
    ['a period over 366 days', 'from=2025-01-01&to=2026-01-02', /to: the period covers 367 days/],
    ['an unknown format', `from=${day(-1)}&to=${day(0)}&format=xml`, /format: must be json, csv or pdf/],
  ])('answers 400 in the envelope for %s', async (_what, query, says) => {
    const res = await p.api.get(`${STATEMENTS}?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, error: expect.stringMatching(says) });
  });

  it('accepts a period of exactly 366 days', async () => {
    expect((await p.api.get(`${STATEMENTS}?from=2027-01-01&to=2028-01-01`)).status).toBe(200);
  });

  it('answers 401 without the key pair', async () => {
    const res = await stack.app.request(`http://engine.test${STATEMENTS}?from=${day(-1)}&to=${day(0)}`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ ok: false, error: expect.any(String) });
  });

  it('is read through the typed client', async () => {
    const res = await p.client.GET('/partners/statements/', { params: { query: { from: day(-6), to: day(-4) } } });
    // The answer's type holds the JSON and the files: without format, it is the JSON.
    if (typeof res.data !== 'object') throw new Error(`not JSON: ${res.response.status}`);
    expect(res.data.data.movements.map((m) => m.entry_id)).toEqual(days.middle);
  });
});

describe('exposure report', () => {
  let owes: Partner;
  let cash: PartnerCredentials;
  let owed: number;

  beforeAll(async () => {
    // A partner with nothing but credit buys on it: it owes the price.
    owes = await newPartner(stack, '90000000', '0');
    await payProduct(owes);
    owed = -minor((await owes.api.wallet()).balance);
    expect(owed).toBeGreaterThan(0);
    cash = await adminClient(stack).createPartner({ name: 'Cash, "Only" Ltd', credit_limit: '0', topup: '300000' });
  });

  it('answers each partner’s balance, credit limit, credit used, its share and what is available, as CSV', async () => {
    const res = await adminClient(stack).get('/admin/reports/exposure');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="exposure-${day(0)}.csv"`);
    const [header, ...rows] = parseCsv(res.body as string);
    expect(header).toEqual(['partner_id', 'name', 'status', 'currency', 'balance', 'credit_limit', 'credit_used', 'credit_used_percent', 'available']);
    const byId = new Map(rows.map((r) => [Number(r[0]), r]));
    const decimal = (m: number) => `${m < 0 ? '-' : ''}${Math.floor(Math.abs(m) / 100)}.${String(Math.abs(m) % 100).padStart(2, '0')}`;
    // owed / 90000000.00 in percent, two decimals rounded half up, in integers.
    const hundredths = Math.floor((owed * 10_000 * 2 + 90_000_000_00) / (2 * 90_000_000_00));
    expect(byId.get(owes.creds.partner_id)).toEqual([
      String(owes.creds.partner_id),
      'Test Agency',
      'active',
      'IRT',
      decimal(-owed),
      '90000000.00',
      decimal(owed),
      `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}`,
      decimal(90_000_000_00 - owed),
    ]);
    expect(byId.get(cash.partner_id)).toEqual([String(cash.partner_id), 'Cash, "Only" Ltd', 'active', 'IRT', '300000.00', '0.00', '0.00', '', '300000.00']);
    // Every partner, once, in id order.
    const ids = rows.map((r) => Number(r[0]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const count = await stack.db.execute(sql`select count(*)::int as n from partners`);
    expect(ids).toHaveLength((count as unknown as { rows: Array<{ n: number }> }).rows[0]!.n);
  });

  it('answers 404 for a report it does not have, 400 for a period the exposure does not take, 401 without the token', async () => {
    expect((await adminClient(stack).get('/admin/reports/nonsense')).status).toBe(404);
    const withPeriod = await adminClient(stack).get(`/admin/reports/exposure?from=${day(-1)}&to=${day(0)}`);
    expect(withPeriod.status).toBe(400);
    expect(withPeriod.body).toEqual({ error: expect.stringContaining('takes no period') });
    expect((await stack.admin.request('http://engine.test/admin/reports/exposure')).status).toBe(401);
  });

  it('is `admin report exposure` on the command line', () => {
    expect(toCommand(['report', 'exposure'])).toEqual({ json: false, command: { method: 'GET', path: '/admin/reports/exposure', file: true } });
    expect(toCommand(['report', 'margins', '--from', '2026-12-01', '--to', '2026-12-31']).command.path).toBe(
      '/admin/reports/margins?from=2026-12-01&to=2026-12-31',
    );
    expect(() => toCommand(['report'])).toThrow(/name a report/);
  });
});
