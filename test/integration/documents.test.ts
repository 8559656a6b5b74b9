import { eq, sql } from 'drizzle-orm';
import { PNG } from 'pngjs';
import { rowsOf } from '../../src/db/client';
import { financeDocuments, orders } from '../../src/db/schema';
import { taxWithin } from '../../src/domain/documents/finance';
import { SEED_PROPERTIES } from '../../src/db/seed/residence-data';
import { SEED_TOURS } from '../../src/db/seed/tours-data';
import { SEED_VISAS } from '../../src/db/seed/visa-data';
import { toCommand } from '../../src/cli/admin';
import { adminClient, call, newPartner, partnerClient, settled, typedAgency, typedPartner, type PartnerCredentials } from '../support/clients';
import { contact, day, traveller, visaApplication } from '../support/fixtures';
import { useStack, type TestStack } from '../support/stack';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { PDFParse } = require('pdf-parse') as { PDFParse: new (o: { data: Uint8Array }) => { getText(): Promise<{ text: string }> } };

/**
 * The documents a booking gives: each service's traveller document, the invoice of each
 * payment and the credit note of each refund, the monthly summary, all as PDFs read back here
 * as text; the agency's legal details and logo on them; on Interface A and on Interface B.
 */

let stack: TestStack;
const OPERATOR = { OPERATOR_LEGAL_NAME: 'Safar Operator Ltd', OPERATOR_TAX_ID: 'IR-411-998877', INVOICE_TAX_NAME: 'VAT', INVOICE_TAX_RATE: '9' };
useStack((s) => (stack = s), { payWaitMs: 30_000, env: OPERATOR });

type Partner = Awaited<ReturnType<typeof newPartner>>;
const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);
const money = (m: number) => `${Math.trunc(m / 100)}.${String(m % 100).padStart(2, '0')}`;

async function raw(creds: PartnerCredentials, path: string, b = false) {
  const headers: Record<string, string> = b
    ? { authorization: `Bearer ${creds.agency_key}` }
    : { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret };
  return stack.app.request(`http://engine.test${path}`, { headers });
}

/** A PDF's text, read back with pdf-parse (whitespace made single spaces). */
async function pdfText(creds: PartnerCredentials, path: string, b = false): Promise<string> {
  const res = await raw(creds, path, b);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe('%PDF-');
  const { text } = await new PDFParse({ data: bytes }).getText();
  return text.replace(/\s+/g, ' ');
}

const documentsOf = async (p: Partner, orderId: number) => {
  const res = await p.api.get(`/api/partners/orders/${orderId}/documents/`);
  expect(res.status).toBe(200);
  return res.body.data.documents as Array<{ kind: string; title: string; available: boolean; reason: string | null; number: string | null; url: string }>;
};

const pay = async (p: Partner, orderId: number) => {
  const paid = await p.client.POST('/partners/pay/', { body: { order_id: orderId, idempotency_key: `doc-${orderId}` } });
  expect(settled(paid)).toBeDefined();
  return settled(paid)!;
};

async function hotelOrder(p: Partner) {
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
  return { orderId: ordered.data!.data.id, hotelName: hotel.name, price: minor(ordered.data!.data.total_price) };
}

const png = (width: number, height: number) => {
  const image = new PNG({ width, height });
  image.data.fill(200);
  return PNG.sync.write(image);
};
const upload = (p: Partner, type: string, body: Buffer | string) =>
  stack.app.request('http://engine.test/api/partners/profile/logo', {
    method: 'POST',
    headers: { 'x-api-key': p.creds.api_key, 'x-api-secret': p.creds.api_secret, 'content-type': type },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });

describe('documents', () => {
  let p: Partner;
  let other: Partner;

  beforeAll(async () => {
    p = await newPartner(stack, '0', '900000000');
    other = await newPartner(stack, '0', '10000000');
  });

  it('numbers the invoices of 50 payments made at once 1 to 50, without a gap or a repeat', async () => {
    const buyer = await newPartner(stack, '0', '900000000');
    const orders = [];
    for (let i = 0; i < 50; i++) orders.push((await buyer.api.productOrder({ quantity: 1 })).id);
    const paid = await Promise.all(orders.map((id) => buyer.client.POST('/partners/pay/', { body: { product_order_id: id, idempotency_key: `many-${id}` } })));
    expect(paid.map((r) => r.response.status)).toEqual(Array(50).fill(200));
    // Every order's list at once, twice over: each invoice is issued once, whoever asks first.
    const lists = await Promise.all([...orders, ...orders].map((id) => documentsOf(buyer, id)));
    const numbers = lists.slice(0, 50).map((docs) => docs.find((d) => d.kind === 'invoice')!.number);
    expect(lists.slice(50).map((docs) => docs.find((d) => d.kind === 'invoice')!.number)).toEqual(numbers);
    const month = new Date().toISOString().slice(0, 7);
    const summary = await buyer.api.get(`/api/partners/invoices/?month=${month}`);
    expect(summary.status).toBe(200);
    const sequence = summary.body.data.documents.map((d: { sequence: number }) => d.sequence);
    expect(sequence).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(new Set(numbers).size).toBe(50);
    const issued = await stack.db.select({ number: financeDocuments.number }).from(financeDocuments).where(eq(financeDocuments.issuer, 'operator'));
    expect(issued.map((r) => r.number).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  }, 240_000);

  it('keeps the agency’s legal details and a checked logo, and refuses bad uploads', async () => {
    const nameless = await p.api.post('/api/partners/profile/', { address: 'Valiasr 12, Tehran' });
    expect([nameless.status, nameless.body.error]).toEqual([400, expect.stringMatching(/^legal_name: /)]);
    expect((await p.api.raw('POST', '/api/partners/profile/', {})).status).toBe(400);
    const set = await p.api.post('/api/partners/profile/', {
      legal_name: 'Acme Travel GmbH',
      address: 'Valiasr 12, Tehran',
      tax_id: 'ATU-12345678',
      email: 'billing@acme.example',
    });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ legal_name: 'Acme Travel GmbH', tax_id: 'ATU-12345678', logo: null });

    const goodPng = await upload(p, 'image/png', png(120, 40));
    expect(goodPng.status).toBe(200);
    expect((await goodPng.json()).data.logo).toMatchObject({ type: 'image/png', width: 120, height: 40 });

    const refused = async (type: string, body: Buffer | string, status: number, message: RegExp) => {
      const res = await upload(p, type, body);
      expect([res.status, await res.json()]).toEqual([status, { ok: false, error: expect.stringMatching(message) }]);
    };
    await refused('image/gif', Buffer.from('GIF89a'), 415, /image\/png or image\/svg\+xml/);
    await refused('text/html', '<svg/>', 415, /Content-Type/);
    await refused('image/png', Buffer.alloc(300 * 1024, 1), 413, /KiB/);
    await refused('image/png', Buffer.from('not a png at all'), 400, /not a PNG/);
    await refused('image/png', Buffer.concat([png(10, 10).subarray(0, 40)]), 400, /not a readable PNG/);
    await refused('image/png', png(2001, 2), 400, /2001x2 pixels/);
    const svg = (inner: string, attrs = '') =>
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="60"${attrs}><rect width="200" height="60" fill="#135"/>${inner}</svg>`;
    await refused('image/svg+xml', svg('<script>alert(1)</script>'), 400, /active content \(<script>\)/);
    await refused('image/svg+xml', svg('', ' onload="alert(1)"'), 400, /active content \(onload=\)/);
    await refused('image/svg+xml', svg('<a xlink:href="https://evil.example/"><text x="5" y="30">x</text></a>'), 400, /outside itself \(xlink:href\)/);
    await refused('image/svg+xml', svg('<image href="http://evil.example/track.png" width="1" height="1"/>'), 400, /outside itself/);
    await refused('image/svg+xml', svg('<rect width="5" height="5" fill="url(https://evil.example/x#p)"/>'), 400, /outside itself \(fill\)/);
    await refused('image/svg+xml', svg('<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>'), 400, /active content/);
    await refused('image/svg+xml', '<html><body>no svg</body></html>', 400, /no <svg> element/);
    await refused('image/svg+xml', Buffer.from([0xff, 0xfe, 0x00]), 400, /not UTF-8/);

    // An editor's extras are dropped quietly; what is kept is what was made safe, and draws.
    const good = await upload(
      p,
      'image/svg+xml',
      `<?xml version="1.0"?>${svg('<circle cx="30" cy="30" r="20" fill="#fc0"/><text x="60" y="38" fill="#fff">ACME</text>')}`,
    );
    expect(good.status).toBe(200);
    expect((await good.json()).data.logo).toMatchObject({ type: 'image/svg+xml', height: expect.any(Number) });
    const kept = await raw(p.creds, '/api/partners/profile/logo');
    expect(kept.headers.get('content-type')).toBe('image/svg+xml');
    const text = await kept.text();
    expect(text).toMatch(/^<svg[\s>]/);
    expect(text).toContain('<circle');
    expect(text).not.toMatch(/<\?xml|script|onload|href|foreignObject|evil/i);
    expect((await other.api.get('/api/partners/profile/logo')).status).toBe(404);
  });

  it('gives a hotel voucher once paid, an invoice that never changes, and a credit note for the refund', async () => {
    const hotel = await hotelOrder(p);
    const before = await documentsOf(p, hotel.orderId);
    expect(before).toEqual([
      expect.objectContaining({ kind: 'voucher', available: false, reason: 'the order is not paid yet' }),
      expect.objectContaining({ kind: 'invoice', available: false, reason: 'the order is not paid yet' }),
    ]);
    const early = await p.api.get(`/api/partners/orders/${hotel.orderId}/documents/voucher.pdf`);
    expect([early.status, early.body.ok, early.body.error]).toEqual([409, false, expect.stringMatching(/not available: the order is not paid yet/)]);
    expect((await p.api.get(`/api/partners/orders/${hotel.orderId}/documents/invoice.pdf`)).status).toBe(409);

    await pay(p, hotel.orderId);
    const docs = await documentsOf(p, hotel.orderId);
    expect(docs.map((d) => [d.kind, d.available])).toEqual([
      ['voucher', true],
      ['invoice', true],
    ]);
    const voucher = await pdfText(p.creds, docs[0]!.url);
    for (const fact of [
      'Hotel voucher',
      'Acme Travel GmbH',
      'Tax id: ATU-12345678',
      hotel.hotelName,
      'Sara Ahmadi',
      'Ali Ahmadi',
      'Confirmation number',
      'Cancellation terms',
      `Order ${hotel.orderId}`,
    ]) {
      expect(voucher).toContain(fact);
    }
    const { orders: row } = { orders: (await p.client.GET('/partners/orders/')).data!.data.results.find((o) => o.id === hotel.orderId)! };
    expect(voucher).toContain(row.supplier_ref!);

    const invoice = await pdfText(p.creds, docs[1]!.url);
    const tax = taxWithin(hotel.price, 900);
    for (const fact of [
      'Invoice',
      docs[1]!.number!,
      'Safar Operator Ltd',
      'Tax id: IR-411-998877',
      'Acme Travel GmbH',
      'Valiasr 12, Tehran',
      money(hotel.price),
      `VAT 9% (included)`,
      money(tax),
      money(hotel.price - tax),
    ]) {
      expect(invoice).toContain(fact);
    }
    expect(invoice).not.toContain('Sara');

    // The agency renames itself and the order is cancelled: the invoice reads as it was issued.
    await p.api.post('/api/partners/profile/', { legal_name: 'Acme Renamed AG' });
    const quote = await p.client.POST('/hotel/cancel_display/', { body: { order_id: hotel.orderId } });
    const cancelled = await p.client.POST('/hotel/cancel/', { body: { order_id: hotel.orderId, quote_id: quote.data!.data.quote_id } });
    expect(cancelled.response.status).toBe(200);
    expect(await pdfText(p.creds, docs[1]!.url)).toBe(invoice);

    const after = await documentsOf(p, hotel.orderId);
    expect(after.map((d) => [d.kind, d.available])).toEqual([
      ['voucher', false],
      ['invoice', true],
      ['credit-note', true],
    ]);
    expect(after[0]!.reason).toBe('the booking is cancelled');
    expect(after[1]!.number).toBe(docs[1]!.number);
    const refund = minor(cancelled.data!.data.refund_amount!);
    const credit = await pdfText(p.creds, after[2]!.url);
    for (const fact of ['Credit note', after[2]!.number!, `Credits invoice: ${docs[1]!.number}`, 'Acme Renamed AG', money(refund), 'Refund:'])
      expect(credit).toContain(fact);
    expect(Number(after[2]!.number!.slice(3))).toBeGreaterThan(Number(docs[1]!.number!.slice(3)));
  }, 120_000);

  it('gives a flight itinerary receipt with passengers, segments, the PNR and ticket numbers', async () => {
    const search = await p.client.POST('/flights/search_flights/', {
      body: { origin: 'THR', destination: 'MHD', departure_date_time: `${day(30)}T00:00:00Z`, adult_count: 1, cabin_type: 'economy', air_trip_type: 'one_way' },
    });
    const fare = search.data!.data.results[0]!;
    const booked = await p.client.POST('/flights/air_booking/', {
      body: { fare_source_code: fare.fare_source_code, traveler_info: { contact, air_travelers: [traveller] } },
    });
    expect(booked.response.status).toBe(201);
    const orderId = booked.data!.data.id;
    await pay(p, orderId);
    const tickets = await p.client.POST('/flights/air_order_ticket/', { body: { order_id: orderId } });
    const ticket = tickets.data!.data.tickets[0]!.ticket_number;
    const docs = await documentsOf(p, orderId);
    expect(docs[0]).toMatchObject({ kind: 'itinerary-receipt', available: true });
    const text = await pdfText(p.creds, docs[0]!.url);
    // The simulated airline still tells the fare's baggage: each passenger's allowance is on the receipt.
    expect(text).toMatch(/\d piece\(s\)/);
    for (const fact of ['Flight itinerary receipt', booked.data!.data.pnr!, 'Reza Karimi', ticket, 'THR', 'MHD', 'Checked baggage'])
      expect(text).toContain(fact);
    expect(await pdfText(p.creds, `/api/partners/orders/${orderId}/documents/invoice.pdf`)).toContain(money(minor(fare.total_price!)));
  }, 60_000);

  it('gives vouchers for a tour paid on credit, a villa stay and products, and a visa application receipt', async () => {
    // An agency on credit: nothing in its wallet, its voucher ready once the operator confirms.
    const onCredit = await newPartner(stack, '500000000', '0');
    const tour = SEED_TOURS.findIndex((t) => t.code === 'TR-IST-5D') + 1;
    const detail = await onCredit.client.GET('/tours/{id}/', { params: { path: { id: String(tour) } } });
    const dep = detail.data!.data.departures[0]!;
    const pre = await onCredit.client.POST('/tours/prebook/', {
      body: { tour_id: tour, departure_id: dep.id, passengers: [traveller, { ...traveller, first_name: 'Mina', gender: 'female' }] },
    });
    const tourOrder = await onCredit.client.POST('/tours/finalize/', { body: { prebook_id: pre.data!.data.prebook_id } });
    await pay(onCredit, tourOrder.data!.data.id);
    expect(minor((await onCredit.api.wallet()).balance)).toBeLessThan(0);
    const tourText = await pdfText(onCredit.creds, `/api/partners/orders/${tourOrder.data!.data.id}/documents/voucher.pdf`);
    for (const fact of ['Tour voucher', SEED_TOURS[tour - 1]!.title, 'Reza Karimi', 'Mina Karimi', 'Test Agency']) expect(tourText).toContain(fact);

    const villa = SEED_PROPERTIES.findIndex((x) => x.code === 'RS-RMSR-02') + 1;
    const held = await p.api.post('/api/residence/reserve/', {
      property_id: villa,
      check_in: day(60),
      check_out: day(62),
      guests: 2,
      lead_guest: { first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', national_id: '0012345679', phone_number: '+989121234567' },
    });
    const stay = await p.api.post('/api/residence/reserve/book/', { reservation_id: held.body.data.reservation_id });
    await pay(p, stay.body.data.id);
    const stayText = await pdfText(p.creds, `/api/partners/orders/${stay.body.data.id}/documents/voucher.pdf`);
    for (const fact of ['Villa stay voucher', SEED_PROPERTIES[villa - 1]!.name, 'Sara Ahmadi', 'Acme Renamed AG']) expect(stayText).toContain(fact);

    const product = await p.api.productOrder({ quantity: 2 });
    const paid = await p.client.POST('/partners/pay/', { body: { product_order_id: product.id, idempotency_key: `doc-p-${product.id}` } });
    expect(paid.response.status).toBe(200);
    const productText = await pdfText(p.creds, `/api/partners/orders/${product.id}/documents/voucher.pdf`);
    expect(productText).toContain('Product voucher');
    expect(productText).toContain(product.items[0]!.name);
    expect(await pdfText(p.creds, `/api/partners/orders/${product.id}/documents/invoice.pdf`)).toContain(product.items[0]!.name);

    const visa = SEED_VISAS.find((v) => v.max_stay_days >= 7)!;
    const applied = await p.client.POST('/visa/request/', { body: visaApplication(SEED_VISAS.indexOf(visa) + 1) });
    await pay(p, applied.data!.data.id);
    const visaDocs = await documentsOf(p, applied.data!.data.id);
    expect(visaDocs[0]).toMatchObject({ kind: 'visa-receipt', available: true });
    const visaText = await pdfText(p.creds, visaDocs[0]!.url);
    for (const fact of ['Visa application receipt', visa.country_name, 'Reza Karimi', 'ending 678', 'passport']) expect(visaText).toContain(fact);
    expect(visaText).not.toContain('P12345678');
  }, 120_000);

  it('answers unknown orders, others’ orders, unknown kinds and bad names clearly on Interface A', async () => {
    const product = await p.api.productOrder({ quantity: 1 });
    const cases: Array<[string, number, RegExp]> = [
      [`/api/partners/orders/999999/documents/`, 404, /order 999999 not found/],
      [`/api/partners/orders/${product.id}/documents/`, 404, /not found/],
      [`/api/partners/orders/999999/documents/voucher.pdf`, 404, /not found/],
      [`/api/partners/orders/abc/documents/voucher.pdf`, 400, /id/],
    ];
    for (const [path, status, message] of cases) {
      const res = await other.api.get(path);
      expect([path, res.status, res.body]).toEqual([path, status, { ok: false, error: expect.stringMatching(message) }]);
    }
    expect((await p.api.get(`/api/partners/orders/${product.id}/documents/boarding-pass.pdf`)).body.error).toMatch(/document "boarding-pass".*not found/);
    expect((await p.api.get(`/api/partners/orders/${product.id}/documents/voucher.txt`)).status).toBe(400);
    expect((await p.api.get(`/api/partners/orders/${product.id}/documents/credit-note.pdf`)).status).toBe(409);
    expect((await p.api.get(`/api/partners/invoices/?month=2026-13`)).status).toBe(400);
  });

  it('lists the month’s invoices and credit notes and draws their summary', async () => {
    const month = new Date().toISOString().slice(0, 7);
    const res = await p.api.get(`/api/partners/invoices/?month=${month}`);
    expect(res.status).toBe(200);
    const docs = res.body.data.documents as Array<{ kind: string; number: string; total: string }>;
    expect(docs.filter((d) => d.kind === 'credit_note')).toHaveLength(1);
    expect(docs.filter((d) => d.kind === 'invoice').length).toBeGreaterThanOrEqual(4);
    const [totals] = res.body.data.totals;
    const invoiced = docs.filter((d) => d.kind === 'invoice').reduce((n, d) => n + minor(d.total), 0);
    expect(minor(totals.invoiced)).toBe(invoiced);
    const text = await pdfText(p.creds, `/api/partners/invoices/?month=${month}&format=pdf`);
    for (const d of docs) expect(text).toContain(d.number);
    expect(text).toContain('Monthly invoice summary');
    expect((await other.api.get(`/api/partners/invoices/?month=${month}`)).body.data.documents).toEqual([]);

    // Operators read the same list, and its summary, with the partner's id.
    const admin = await adminClient(stack).get(`/admin/partners/${p.creds.partner_id}/invoices?month=${month}`);
    expect(admin.status).toBe(200);
    expect(admin.body).toEqual({ partner_id: p.creds.partner_id, ...res.body.data });
    expect((await adminClient(stack).get(`/admin/partners/${p.creds.partner_id}/invoices?month=2026`)).status).toBe(400);
    expect((await adminClient(stack).get(`/admin/partners/999999/invoices?month=${month}`)).status).toBe(404);
    expect(toCommand(['partner', 'invoices', '--partner', '7', '--month', '2026-12', '--format', 'pdf'])).toEqual({
      json: false,
      command: { method: 'GET', path: '/admin/partners/7/invoices?month=2026-12&format=pdf', file: true },
    });
  });

  it('gives Interface B a booking’s and an order’s documents, in its own error shape', async () => {
    const b = (path: string) => call(stack.app, 'GET', `/v1${path}`, { authorization: `Bearer ${p.creds.agency_key}` });
    const search = await b(`/hotels/search?city=shiraz&check_in=${day(45)}&check_out=${day(47)}`);
    const hotel = search.body.results[0];
    const booking = await call(
      stack.app,
      'POST',
      '/v1/hotels/bookings',
      { authorization: `Bearer ${p.creds.agency_key}` },
      {
        hotel_id: hotel.hotel_id,
        room_id: hotel.rooms[0].room_id,
        guest_name: 'Nima Rahimi',
        guest_email: 'nima@example.com',
        check_in: day(45),
        check_out: day(47),
      },
    );
    expect(booking.status).toBe(201);
    const id = booking.body.booking_id;
    const list = await b(`/hotels/bookings/${id}/documents`);
    expect(list.status).toBe(200);
    expect(list.body.documents.map((d: { kind: string; available: boolean }) => [d.kind, d.available])).toEqual([
      ['voucher', true],
      ['invoice', true],
    ]);
    const voucher = await pdfText(p.creds, list.body.documents[0].url, true);
    for (const fact of ['Hotel voucher', hotel.name, 'Nima Rahimi', hotel.address]) expect(voucher).toContain(fact);
    expect(await pdfText(p.creds, `/v1/hotels/bookings/${id}/documents/invoice.pdf`, true)).toContain('Safar Operator Ltd');

    const order = await call(
      stack.app,
      'POST',
      '/v1/products/orders',
      { authorization: `Bearer ${p.creds.agency_key}` },
      { product_id: 'ESIM-TR-10GB-15D', quantity: 1, delivery_address: { street: 'Valiasr 1', city: 'Tehran', country: 'IR', postal_code: '1415' } },
    );
    expect(order.status).toBe(201);
    const orderDocs = await b(`/products/orders/${order.body.order_id}/documents`);
    expect(orderDocs.body.documents[0]).toMatchObject({ kind: 'voucher', available: true });
    expect(await pdfText(p.creds, orderDocs.body.documents[0].url, true)).toContain('Product voucher');

    const otherB = (path: string) => call(stack.app, 'GET', `/v1${path}`, { authorization: `Bearer ${other.creds.agency_key}` });
    expect(await otherB(`/hotels/bookings/${id}/documents`)).toMatchObject({ status: 404, body: { detail: expect.stringMatching(/booking .* not found/) } });
    expect(await otherB(`/hotels/bookings/${id}/documents/voucher.pdf`)).toMatchObject({ status: 404, body: { detail: expect.any(String) } });
    expect(await b(`/hotels/bookings/${id}/documents/credit-note.pdf`)).toMatchObject({
      status: 409,
      body: { detail: expect.stringMatching(/nothing of it was refunded/) },
    });
    expect(await b(`/hotels/bookings/${id}/documents/ticket.pdf`)).toMatchObject({ status: 404, body: { detail: expect.any(String) } });
    expect((await b(`/hotels/bookings/${id}/documents/voucher.exe`)).status).toBe(422);
    expect(await b(`/products/orders/999999/documents`)).toMatchObject({ status: 404, body: { detail: expect.any(String) } });
  }, 60_000);
});

describe('documents of sub-agencies', () => {
  const accountBalance = async (code: string) =>
    Number(
      rowsOf<{ b: string }>(
        await stack.db.execute(sql`select coalesce(sum(case when credit_account = ${code} then amount_minor else -amount_minor end), 0) as b
          from transfers where credit_account = ${code} or debit_account = ${code}`),
      )[0]!.b,
    );
  const numbersOf = async (issuer: string) =>
    (
      await stack.db
        .select({ number: financeDocuments.number, partnerId: financeDocuments.partnerId })
        .from(financeDocuments)
        .where(eq(financeDocuments.issuer, issuer))
    ).sort((a, b) => a.number - b.number);
  /** The sizes of the images a PDF draws (pdfkit writes each image's dictionary in the clear). */
  const imagesIn = async (creds: PartnerCredentials, path: string) => {
    const res = await raw(creds, path);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer()).toString('latin1');
    return [...bytes.matchAll(/\/Subtype \/Image[^>]*?\/Width (\d+)[^>]*?\/Height (\d+)/g)].map((m) => `${m[1]}x${m[2]}`);
  };
  const summaryOf = async (who: Partner) => {
    const res = await who.api.get(`/api/partners/invoices/?month=${new Date().toISOString().slice(0, 7)}`);
    expect(res.status).toBe(200);
    return res.body.data as {
      documents: Array<{ number: string; kind: string; issuer: string; order_id: number; total: string }>;
      totals: Array<{ net: string }>;
    };
  };

  it('a sub-agency is invoiced by its parent in the parent’s one sequence; the company invoices the parent the price less its margin; a refund credits both', async () => {
    const parent = await newPartner(stack, '0', '1000000000');
    const parentId = parent.creds.partner_id;
    await parent.api.post('/api/partners/profile/', { legal_name: 'Parent Travel LLC', address: 'Zand 5, Shiraz', tax_id: 'PT-777' });
    expect((await upload(parent, 'image/png', png(120, 40))).status).toBe(200);
    const child = async (name: string): Promise<Partner> => {
      const made = await parent.api.post('/api/partners/agencies/', { name });
      expect(made.status).toBe(201);
      const creds = made.body.data as PartnerCredentials;
      const granted = await parent.api.post(`/api/partners/agencies/${creds.partner_id}/credit/`, {
        credit_limit: '300000000',
        idempotency_key: `doc-${name}`,
      });
      expect(granted.status).toBe(200);
      const marked = await call(stack.app, 'PUT', `/api/partners/agencies/${creds.partner_id}/markups/`, parentAuthOf(parent.creds), {
        markups: [
          { service: 'hotels', percent: '5', fixed: '1' },
          { service: 'products', percent: '10' },
        ],
      });
      expect(marked.status).toBe(200);
      return { creds, api: partnerClient(stack, creds), client: typedPartner(stack, creds), agency: typedAgency(stack, creds) };
    };
    const shiraz = await child('Acme Shiraz');
    const tabriz = await child('Acme Tabriz');
    await shiraz.api.post('/api/partners/profile/', { legal_name: 'Shiraz Branch Co', address: 'Hafez 9, Shiraz' });
    const operatorBefore = (await numbersOf('operator')).length;

    // The sub-agency's hotel order: its invoice is the parent's, numbered in the parent's sequence.
    const hotel = await hotelOrder(shiraz);
    const [row] = await stack.db.select().from(orders).where(eq(orders.id, hotel.orderId));
    expect(row!.agencyMargin).toBeGreaterThan(0);
    await pay(shiraz, hotel.orderId);
    const own = await documentsOf(shiraz, hotel.orderId);
    expect(own.map((d) => [d.kind, d.available])).toEqual([
      ['voucher', true],
      ['invoice', true],
    ]);
    expect(own[1]!.number).toBe(`AG${parentId}-0000001`);
    const invoice = await pdfText(shiraz.creds, own[1]!.url);
    for (const fact of ['Invoice', own[1]!.number!, 'Parent Travel LLC', 'Zand 5, Shiraz', 'Tax id: PT-777', 'Shiraz Branch Co', money(hotel.price)])
      expect(invoice).toContain(fact);
    expect(invoice).not.toContain('Safar Operator Ltd');
    // Under the parent's logo: the image drawn is the one it had when the invoice was issued.
    expect(await imagesIn(shiraz.creds, own[1]!.url)).toEqual(['120x40']);
    // Its traveller documents stay its own, whoever reads them.
    const voucher = await pdfText(parent.creds, own[0]!.url);
    expect(voucher).toContain('Shiraz Branch Co');
    expect(voucher).not.toContain('Parent Travel LLC');

    // The parent reads the sub-agency's invoice and its own purchase: the company's, for the price less the parent's margin.
    const seen = await documentsOf(parent, hotel.orderId);
    expect(seen.map((d) => d.kind)).toEqual(['voucher', 'invoice', 'purchase-invoice']);
    expect(seen[1]!.number).toBe(own[1]!.number);
    expect(seen[2]!.number).toMatch(/^OP-\d{7}$/);
    const purchase = await pdfText(parent.creds, seen[2]!.url);
    const net = hotel.price - row!.agencyMargin;
    for (const fact of [
      'Invoice',
      seen[2]!.number!,
      'Safar Operator Ltd',
      'Parent Travel LLC',
      `Sub-agency: Shiraz Branch Co (${shiraz.creds.partner_id})`,
      money(net),
      money(row!.agencyMargin),
    ])
      expect(purchase).toContain(fact);
    expect(purchase).toContain(`VAT 9% (included) ${money(taxWithin(net, 900))}`);
    expect(await imagesIn(parent.creds, seen[2]!.url)).toEqual([]);
    expect(await imagesIn(parent.creds, own[0]!.url)).toEqual([]);
    // The sub-agency sees nothing of its parent's purchase.
    expect((await shiraz.api.get(`/api/partners/orders/${hotel.orderId}/documents/purchase-invoice.pdf`)).status).toBe(404);

    // Refunded: the sub-agency's credit note from its parent, the parent's from the company for what it got back less its margin.
    const quote = await shiraz.client.POST('/hotel/cancel_display/', { body: { order_id: hotel.orderId } });
    const cancelled = await shiraz.client.POST('/hotel/cancel/', { body: { order_id: hotel.orderId, quote_id: quote.data!.data.quote_id } });
    expect(cancelled.response.status).toBe(200);
    const refund = minor(cancelled.data!.data.refund_amount!);
    expect(refund).toBeGreaterThan(row!.agencyMargin);
    const after = await documentsOf(parent, hotel.orderId);
    expect(after.map((d) => d.kind)).toEqual(['voucher', 'invoice', 'credit-note', 'purchase-invoice', 'purchase-credit-note']);
    expect(after[2]!.number).toBe(`AG${parentId}-0000002`);
    const credit = await pdfText(shiraz.creds, after[2]!.url);
    for (const fact of ['Credit note', `Credits invoice: ${own[1]!.number}`, 'Parent Travel LLC', 'Shiraz Branch Co', money(refund)])
      expect(credit).toContain(fact);
    const purchaseCredit = await pdfText(parent.creds, after[4]!.url);
    for (const fact of ['Credit note', `Credits invoice: ${seen[2]!.number}`, 'Safar Operator Ltd', 'Parent Travel LLC', money(refund - row!.agencyMargin)])
      expect(purchaseCredit).toContain(fact);
    expect((await documentsOf(shiraz, hotel.orderId)).map((d) => d.kind)).toEqual(['voucher', 'invoice', 'credit-note']);
    // Issued documents never change, whatever the parent does with its logo and details.
    expect((await upload(parent, 'image/png', png(90, 30))).status).toBe(200);
    await parent.api.post('/api/partners/profile/', { legal_name: 'Parent Renamed LLC' });
    expect(await pdfText(parent.creds, seen[2]!.url)).toBe(purchase);
    expect(await pdfText(parent.creds, own[1]!.url)).toBe(invoice);
    expect(await imagesIn(parent.creds, own[1]!.url)).toEqual(['120x40']);

    // Both sub-agencies buy, in turns: one gapless sequence of the parent's for the two.
    for (const buyer of [tabriz, shiraz, tabriz]) {
      const order = await buyer.api.productOrder({ quantity: 1 });
      expect(
        (await buyer.client.POST('/partners/pay/', { body: { product_order_id: order.id, idempotency_key: `sub-doc-${order.id}` } })).response.status,
      ).toBe(200);
      expect((await documentsOf(buyer, order.id)).find((d) => d.kind === 'invoice')!.number).toMatch(new RegExp(`^AG${parentId}-\\d{7}$`));
    }
    const [shirazSummary, tabrizSummary, parentSummary] = [await summaryOf(shiraz), await summaryOf(tabriz), await summaryOf(parent)];
    const parents = await numbersOf(`agency:${parentId}`);
    expect(parents.map((d) => d.number)).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(parents.map((d) => d.partnerId))).toEqual(new Set([shiraz.creds.partner_id, tabriz.creds.partner_id]));
    expect([...shirazSummary.documents, ...tabrizSummary.documents].every((d) => d.issuer === `agency:${parentId}`)).toBe(true);
    // The parent's month: the company's invoices and credit notes to it, which add up to its sub-agencies' less its margins.
    expect(parentSummary.documents.map((d) => d.issuer)).toEqual(Array(5).fill('operator'));
    expect(parentSummary.documents.map((d) => d.kind)).toEqual(['invoice', 'credit_note', 'invoice', 'invoice', 'invoice']);
    const netOf = (s: { totals: Array<{ net: string }> }) => minor(s.totals[0]!.net);
    expect(netOf(parentSummary)).toBe(netOf(shirazSummary) + netOf(tabrizSummary) - (await accountBalance(`agency_margin:${parentId}`)));
    // The company's own sequence stays gapless across all of it.
    const operator = (await numbersOf('operator')).map((d) => d.number);
    expect(operator).toEqual(Array.from({ length: operator.length }, (_, i) => i + 1));
    expect(operator.length - operatorBefore).toBe(5);

    // Both sub-agencies' orders paid, then every list asked for at once, by each sub-agency and by the parent: each document once, no gap.
    const more: Array<{ buyer: Partner; id: number }> = [];
    for (const buyer of [shiraz, tabriz, shiraz, tabriz, shiraz, tabriz]) {
      const order = await buyer.api.productOrder({ quantity: 1 });
      expect(
        (await buyer.client.POST('/partners/pay/', { body: { product_order_id: order.id, idempotency_key: `sub-doc-${order.id}` } })).response.status,
      ).toBe(200);
      more.push({ buyer, id: order.id });
    }
    await Promise.all(more.flatMap(({ buyer, id }) => [documentsOf(buyer, id), documentsOf(parent, id), documentsOf(parent, id)]));
    expect((await numbersOf(`agency:${parentId}`)).map((d) => d.number)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    const operatorAfter = (await numbersOf('operator')).map((d) => d.number);
    expect(operatorAfter).toEqual(Array.from({ length: operator.length + 6 }, (_, i) => i + 1));
  }, 180_000);
});

const parentAuthOf = (creds: PartnerCredentials) => ({ 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret });
