import { and, eq } from 'drizzle-orm';
import { toCommand } from '../../src/cli/admin';
import { ledgerEntries, reservations } from '../../src/db/schema';
import { SEED_PROPERTIES } from '../../src/db/seed/residence-data';
import { currentStay, modifyStay, undoStayChange } from '../../src/domain/residence/modification';
import { adminClient, newPartner as partnerWithWallet, type partnerClient } from '../support/clients';
import { eventTypesOf } from '../support/events';
import { recordHistory } from '../support/histories';
import { startStack, type TestStack, useStack } from '../support/stack';
import { day } from '../support/fixtures';
import { waitFor } from '../support/wait';

/** Residence (villas) on Interface A (spec §4.5): properties, date holds, book, pay, modify, cancel with the host's acceptance. */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

type Api = ReturnType<typeof partnerClient>;
const TOPUP = 1_000_000_000;
const newPartner = () => partnerWithWallet(stack, '0', String(TOPUP));
const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);
const propertyId = (code: string) => SEED_PROPERTIES.findIndex((p) => p.code === code) + 1;
const FLEXIBLE = propertyId('RS-RMSR-02'); // flexible, min 1 night, sleeps 5, never blocked
const STRICT = propertyId('RS-CHLS-01'); // strict, min 2 nights

const leadGuest = { first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', national_id: '0012345679', phone_number: '+989121234567' };
const reserveBody = (property: number, from: number, nights: number, guests = 2) => ({
  property_id: property,
  check_in: day(from),
  check_out: day(from + nights),
  guests,
  lead_guest: leadGuest,
});

async function reservePayConfirm(api: Api, property: number, from: number, nights: number) {
  const held = await api.post('/api/residence/reserve/', reserveBody(property, from, nights));
  expect(held.status).toBe(200);
  const order = await api.post('/api/residence/reserve/book/', { reservation_id: held.body.data.reservation_id });
  expect(order.status).toBe(201);
  const paid = await api.post('/api/partners/pay/', { order_id: order.body.data.id, idempotency_key: `stay-${order.body.data.id}` });
  expect(paid.status).toBe(200);
  return { reservationId: held.body.data.reservation_id as number, orderId: order.body.data.id as number, price: held.body.data.total_price as string };
}

/** What `admin reconcile` finds wrong in a partner's books. */
const findingsOf = async (partnerId: number) =>
  (await adminClient(stack).get('/admin/reconcile')).body.findings.filter((f: { partner_id: number }) => f.partner_id === partnerId);
const detail = async (api: Api, id: number) => (await api.get(`/api/residence/reserve/detail/?reservation_id=${id}`)).body.data;
describe('properties', () => {
  it('lists properties with filters and availability, and shows one with rules and taken dates', async () => {
    const { api } = await newPartner();
    const all = await api.get('/api/residence/properties/list/');
    expect(all.body.data.total_count).toBe(SEED_PROPERTIES.length);
    const ramsar = await api.get('/api/residence/properties/list/?city=ramsar');
    expect(ramsar.body.data.results.map((p: { city: string }) => p.city)).toEqual(Array(ramsar.body.data.total_count).fill('Ramsar'));
    const big = await api.get('/api/residence/properties/list/?guests=12');
    expect(big.body.data.results.every((p: { max_guests: number }) => p.max_guests >= 12)).toBe(true);
    const blocked = SEED_PROPERTIES.findIndex((p) => p.blocked_offsets.length > 0);
    const b = SEED_PROPERTIES[blocked]!.blocked_offsets[0]!;
    const free = await api.get(`/api/residence/properties/list/?check_in=${day(b.from_offset_days)}&check_out=${day(b.from_offset_days + 1)}`);
    expect(free.body.data.results.map((p: { id: number }) => p.id)).not.toContain(blocked + 1);
    const one = await api.get(`/api/residence/properties/detail/?property_id=${blocked + 1}`);
    expect(one.body.data).toMatchObject({ house_rules: expect.any(Array), amenities: expect.any(Array), cancellation_policy: expect.any(String) });
    expect(one.body.data.unavailable[0]).toEqual({ from: day(b.from_offset_days), to: day(b.from_offset_days + b.nights) });
    expect((await api.get('/api/residence/properties/detail/?property_id=9999')).status).toBe(404);
    expect((await api.get('/api/residence/properties/detail/?property_id=abc')).status).toBe(400);
  });
});

describe('reserve', () => {
  it.each([
    [{ check_in: day(-1), check_out: day(2) }, /^check_in: must be from today \(UTC\)/],
    [{ check_out: day(30) }, /^check_out: must be after check_in/],
    [{ property_id: STRICT, check_in: day(100), check_out: day(101) }, /^check_out: this property takes at least 2 nights/],
    [{ guests: 9 }, /^guests: this property sleeps at most 5/],
    [{ property_id: 9999 }, /^property_id: no property 9999/],
    [{ lead_guest: { ...leadGuest, phone_number: 'call me' } }, /^lead_guest\.phone_number: /],
  ])('refuses %j with 400 and holds nothing', async (over, message) => {
    const { api } = await newPartner();
    const res = await api.post('/api/residence/reserve/', { ...reserveBody(FLEXIBLE, 30, 2), ...over });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(await stack.db.select().from(reservations)).toHaveLength(0);
  });

  it('never double-books: two partners reserving overlapping dates at once, one wins', async () => {
    const [{ api: a }, { api: b }] = await Promise.all([newPartner(), newPartner()]);
    const replies = await Promise.all([
      a.post('/api/residence/reserve/', reserveBody(FLEXIBLE, 60, 3)),
      b.post('/api/residence/reserve/', reserveBody(FLEXIBLE, 61, 3)),
    ]);
    expect(replies.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(replies.find((r) => r.status === 400)!.body.error).toMatch(/^check_in: the property is booked/);
    const ok = replies.find((r) => r.status === 200)!.body.data;
    // Check-out day is free: day 64 is the check-out of whichever of 60–63 and 61–64 won.
    expect((await a.post('/api/residence/reserve/', reserveBody(FLEXIBLE, 64, 1))).status).toBe(200);
    expect(ok.status).toBe('held');
  });
});

describe('a paid stay', () => {
  it('holds, books, pays, changes dates up and down through the wallet, then cancels with the host’s acceptance', async () => {
    const { api } = await newPartner();
    const held = await api.post('/api/residence/reserve/', reserveBody(FLEXIBLE, 90, 2));
    expect(held.body.data).toMatchObject({ status: 'held', nights: 2, seconds_left: expect.any(Number) });
    const time = await api.get(`/api/residence/reserve/time/?reservation_id=${held.body.data.reservation_id}`);
    expect(time.body.data.seconds_left).toBeGreaterThan(0);
    const early = await api.post('/api/residence/bookings/modify/', {
      reservation_id: held.body.data.reservation_id,
      check_in: day(90),
      check_out: day(93),
      guests: 2,
    });
    expect(early.status).toBe(400);
    expect(early.body.error).toMatch(/not paid yet/);

    const order = await api.post('/api/residence/reserve/book/', { reservation_id: held.body.data.reservation_id });
    expect(order.body.data).toMatchObject({ service: 'residence', status: 'pending', total_price: held.body.data.total_price });
    await api.post('/api/partners/pay/', { order_id: order.body.data.id });
    const id = held.body.data.reservation_id;
    const confirmed = await detail(api, id);
    expect(confirmed).toMatchObject({ status: 'confirmed', order_status: 'completed', confirmation_number: expect.stringMatching(/^HOST-/) });
    expect(minor((await api.wallet()).balance)).toBe(TOPUP * 100 - minor(held.body.data.total_price));

    const longer = await api.post('/api/residence/bookings/modify/', { reservation_id: id, check_in: day(90), check_out: day(94), guests: 3 });
    expect(longer.status).toBe(200);
    expect(minor(longer.body.data.difference)).toBe(minor(longer.body.data.new_total) - minor(held.body.data.total_price));
    expect(minor(longer.body.data.difference)).toBeGreaterThan(0);
    expect(minor((await api.wallet()).balance)).toBe(TOPUP * 100 - minor(longer.body.data.new_total));
    expect((await api.get('/api/partners/ledger/')).body.data.results[0]).toMatchObject({
      type: 'payment',
      direction: 'debit',
      amount: longer.body.data.difference,
      order: order.body.data.id,
    });

    const shorter = await api.post('/api/residence/bookings/modify/', { reservation_id: id, check_in: day(91), check_out: day(92), guests: 2 });
    expect(minor(shorter.body.data.difference)).toBeLessThan(0);
    expect((await api.get('/api/partners/ledger/')).body.data.results[0]).toMatchObject({ type: 'refund', direction: 'credit', order: order.body.data.id });
    expect(minor((await api.wallet()).balance)).toBe(TOPUP * 100 - minor(shorter.body.data.new_total));
    expect((await detail(api, id)).check_in).toBe(day(91));

    const cancel = await api.post('/api/residence/bookings/cancel/', { reservation_id: id });
    expect(cancel.body.data).toMatchObject({ status: 'cancel_requested', refund_amount: shorter.body.data.new_total });
    expect((await api.post('/api/residence/bookings/modify/', { reservation_id: id, check_in: day(91), check_out: day(93), guests: 2 })).status).toBe(400);
    const accepted = await api.post('/api/residence/bookings/accept-cancel/', { reservation_id: id });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ status: 'cancelled', order_status: 'cancelled' });
    expect(await api.wallet()).toMatchObject({ balance: `${TOPUP}.00` });
    expect(await eventTypesOf(api, order.body.data.id)).toEqual([
      'order.processing',
      'order.completed',
      'reservation.modified',
      'reservation.modified',
      'reservation.cancelled',
    ]);
    await recordHistory(stack, `residence-reservation:r${id}`, 'residence-reservation');
    const [row] = await stack.db.select().from(reservations).where(eq(reservations.id, id));
    await recordHistory(stack, row!.holdRef, 'residence-reserve');
  });

  it('tells the host every change; one the host refuses is undone: stay, price and wallet as before, answered 502', async () => {
    const { api, creds } = await newPartner();
    const { reservationId: id, orderId } = await reservePayConfirm(api, FLEXIBLE, 150, 2);
    const host = (await detail(api, id)).confirmation_number as string;
    const atHost = async () =>
      (await (await fetch(`${stack.simulatorUrl}/residence/bookings/${encodeURIComponent(host)}`)).json()) as { amendments: unknown[] };

    const longer = await api.post('/api/residence/bookings/modify/', { reservation_id: id, check_in: day(150), check_out: day(153), guests: 3 });
    expect(longer.status).toBe(200);
    expect((await atHost()).amendments).toEqual([{ check_in: day(150), check_out: day(153), guests: 3 }]);
    const stay = { check_in: day(150), check_out: day(153), guests: 3, total_price: longer.body.data.new_total, status: 'confirmed' };
    expect(await detail(api, id)).toMatchObject(stay);
    const balance = (await api.wallet()).balance;
    const rows = async () => (await api.get('/api/partners/ledger/')).body.data;
    const before = (await rows()).total_count;

    // The host's own record is cancelled, as a host may do: it takes no change any more.
    expect((await fetch(`${stack.simulatorUrl}/residence/bookings/${encodeURIComponent(host)}/cancel`, { method: 'POST', body: '{}' })).status).toBe(200);
    for (const [nights, moves] of [
      [5, { charged: 'debit', back: 'credit' }],
      [1, { charged: 'credit', back: 'debit' }],
    ] as const) {
      const refused = await api.post('/api/residence/bookings/modify/', { reservation_id: id, check_in: day(150), check_out: day(150 + nights), guests: 3 });
      expect(refused.status).toBe(502);
      expect(refused.body).toEqual({
        ok: false,
        error: expect.stringMatching(/^the host refused the change \(.*\); it was undone: the stay and the wallet are as they were$/),
      });
      expect(await detail(api, id)).toMatchObject(stay);
      expect((await api.wallet()).balance).toBe(balance);
      // The change's movement and its reversal, which names it.
      const [back, charged] = (await rows()).results;
      expect(charged).toMatchObject({ direction: moves.charged, order: orderId, reverses: null });
      expect(back).toMatchObject({
        direction: moves.back,
        order: orderId,
        amount: charged.amount,
        reverses: charged.id,
        note: expect.stringMatching(/^reversal of change/),
      });
    }
    expect((await rows()).total_count).toBe(before + 4);
    expect((await atHost()).amendments).toHaveLength(1);
    // The books add up: the order was paid exactly the price it kept.
    expect(await findingsOf(creds.partner_id)).toEqual([]);

    // Cancelled at the price the stay kept.
    const cancel = await api.post('/api/residence/bookings/cancel/', { reservation_id: id });
    expect(cancel.body.data).toMatchObject({ status: 'cancel_requested', refund_amount: longer.body.data.new_total });
    expect((await api.post('/api/residence/bookings/accept-cancel/', { reservation_id: id })).status).toBe(200);
    expect(await api.wallet()).toMatchObject({ balance: `${TOPUP}.00` });
    expect(await eventTypesOf(api, orderId)).toEqual([
      'order.processing',
      'order.completed',
      'reservation.modified',
      // Each refused change: the change, then the stay back as it was.
      'reservation.modified',
      'reservation.modified',
      'reservation.modified',
      'reservation.modified',
      'reservation.cancelled',
    ]);
    await recordHistory(stack, `residence-reservation:r${id}`, 'residence-reservation-host-refused');
  });

  it('a change the host does not answer is asked after: kept when the host made it, undone when it did not', async () => {
    const { api, creds } = await newPartner();
    const { reservationId: id, orderId, price } = await reservePayConfirm(api, FLEXIBLE, 160, 2);
    const host = (await detail(api, id)).confirmation_number as string;
    const atHost = async () =>
      (await (await fetch(`${stack.simulatorUrl}/residence/bookings/${encodeURIComponent(host)}`)).json()) as { current: Record<string, unknown> };
    const modify = (nights: number, scenario: string) =>
      api.post(
        '/api/residence/bookings/modify/',
        { reservation_id: id, check_in: day(160), check_out: day(160 + nights), guests: 2 },
        { 'x-sandbox-scenario': scenario },
      );
    const wallet = async () => minor((await api.wallet()).balance);

    // The host makes the change, but every answer to it is lost: asked, it holds the change, which stands.
    const kept = await modify(4, 'supplier_lost_response');
    expect(kept.status).toBe(200);
    const longer = { check_in: day(160), check_out: day(164), guests: 2, total_price: kept.body.data.new_total, status: 'confirmed' };
    expect(await detail(api, id)).toMatchObject(longer);
    expect((await atHost()).current).toMatchObject({ check_in: day(160), check_out: day(164), guests: 2 });
    expect(await wallet()).toBe(TOPUP * 100 - minor(kept.body.data.new_total));

    // The host is down through the change's tries; asked after, it still holds the stay as it was: undone here.
    const balance = await wallet();
    const undone = await modify(1, 'supplier_down');
    expect(undone.status).toBe(502);
    expect(undone.body).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^the host did not answer the change \(.*\); the host does not hold it; the change was undone: the stay and the wallet are as they were, try again later$/,
      ),
    });
    expect(await detail(api, id)).toMatchObject(longer);
    expect((await atHost()).current).toMatchObject({ check_in: day(160), check_out: day(164) });
    expect(await wallet()).toBe(balance);
    const [back, refunded] = (await api.get('/api/partners/ledger/')).body.data.results;
    expect(refunded).toMatchObject({ direction: 'credit', order: orderId, reverses: null });
    expect(back).toMatchObject({ direction: 'debit', order: orderId, amount: refunded.amount, reverses: refunded.id });

    expect(await findingsOf(creds.partner_id)).toEqual([]);
    expect(minor(kept.body.data.previous_total)).toBe(minor(price));
    expect(await eventTypesOf(api, orderId)).toEqual([
      'order.processing',
      'order.completed',
      'reservation.modified',
      'reservation.modified',
      'reservation.modified',
    ]);
    await recordHistory(stack, `residence-reservation:r${id}`, 'residence-reservation-host-unanswered');
  });

  it('a change retried after its answer was lost gets the same answer and moves no money twice', async () => {
    const { api } = await newPartner();
    const { reservationId, price } = await reservePayConfirm(api, FLEXIBLE, 170, 2);
    const run = { workflowId: `residence-reservation:r${reservationId}`, runId: 'a-run-whose-answer-was-lost', reservationId, seq: 1 };
    const longer = { ...run, checkIn: day(170), checkOut: day(173), guests: 2 };
    const first = await modifyStay(stack.db, longer);
    expect(first).toMatchObject({ previousTotalMinor: minor(price), differenceMinor: first.newTotalMinor - minor(price) });
    expect(first.differenceMinor).toBeGreaterThan(0);
    const wallet = await api.wallet();
    expect(await modifyStay(stack.db, longer)).toEqual(first);
    expect(await api.wallet()).toEqual(wallet);
    // The other way: a refund, retried.
    const shorter = { ...run, seq: 2, checkIn: day(170), checkOut: day(171), guests: 2 };
    const before = await currentStay(stack.db, reservationId);
    const back = await modifyStay(stack.db, shorter);
    expect(back.differenceMinor).toBeLessThan(0);
    expect(await modifyStay(stack.db, shorter)).toEqual(back);

    // Its undo (the host refused it), retried too: the refund taken back once, the stay as before.
    const undo = { ...run, seq: 2, previous: before, reason: 'the host refused' };
    const undone = await undoStayChange(stack.db, undo);
    expect(undone.reversalLedgerId).toEqual(expect.any(Number));
    expect(await undoStayChange(stack.db, undo)).toEqual(undone);
    expect((await api.wallet()).balance).toBe(wallet.balance);
    expect(await currentStay(stack.db, reservationId)).toEqual(before);
    expect((await stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.reversesEntryId, back.ledgerId!))).map((l) => l.id)).toEqual([
      undone.reversalLedgerId,
    ]);
  });

  it('charges what the policy keeps: a strict stay cancelled late refunds nothing', async () => {
    const { api } = await newPartner();
    const { reservationId, orderId } = await reservePayConfirm(api, STRICT, 5, 2);
    const paid = await api.wallet();
    const cancel = await api.post('/api/residence/bookings/cancel/', { reservation_id: reservationId });
    expect(cancel.body.data.refund_amount).toBe('0.00');
    await adminClient(stack).post(`/admin/reservations/${reservationId}/accept-cancel`);
    expect((await detail(api, reservationId)).status).toBe('cancelled');
    expect(await api.wallet()).toMatchObject({ balance: paid.balance });
    expect(await eventTypesOf(api, orderId)).toEqual(['order.processing', 'order.completed', 'reservation.cancelled']);
  });

  it('refuses a change that the wallet cannot cover (402) or onto taken dates (400)', async () => {
    const { api } = await partnerWithWallet(stack, '0', '40000000');
    const { api: rich } = await newPartner();
    const { reservationId, orderId } = await reservePayConfirm(api, propertyId('RS-TEHR-01'), 100, 1);
    await reservePayConfirm(rich, propertyId('RS-TEHR-01'), 102, 2);
    const taken = await api.post('/api/residence/bookings/modify/', { reservation_id: reservationId, check_in: day(100), check_out: day(103), guests: 2 });
    expect(taken.status).toBe(400);
    expect(taken.body.error).toMatch(/booked/);
    const pricey = await api.post('/api/residence/bookings/modify/', { reservation_id: reservationId, check_in: day(110), check_out: day(140), guests: 2 });
    expect(pricey.status).toBe(402);
    expect((await detail(api, reservationId)).check_in).toBe(day(100));
    // A refused change is no reservation.modified.
    expect(await eventTypesOf(api, orderId)).toEqual(['order.processing', 'order.completed']);
  });

  it('releases an unpaid hold on cancel with no money moving', async () => {
    const { api } = await newPartner();
    const held = await api.post('/api/residence/reserve/', reserveBody(FLEXIBLE, 120, 2));
    const res = await api.post('/api/residence/bookings/cancel/', { reservation_id: held.body.data.reservation_id });
    expect(res.body.data).toMatchObject({ status: 'cancelled', refund_amount: '0.00' });
    expect((await api.post('/api/residence/reserve/', reserveBody(FLEXIBLE, 120, 2))).status).toBe(200);
    expect(await api.wallet()).toMatchObject({ balance: `${TOPUP}.00` });
  });

  it('hides other partners’ reservations', async () => {
    const { api } = await newPartner();
    const { api: other } = await newPartner();
    const held = await api.post('/api/residence/reserve/', reserveBody(FLEXIBLE, 130, 1));
    const id = held.body.data.reservation_id;
    expect((await other.get(`/api/residence/reserve/detail/?reservation_id=${id}`)).status).toBe(404);
    expect((await other.get(`/api/residence/reserve/time/?reservation_id=${id}`)).status).toBe(404);
    expect((await other.post('/api/residence/reserve/book/', { reservation_id: id })).status).toBe(404);
    expect((await other.post('/api/residence/bookings/cancel/', { reservation_id: id })).status).toBe(404);
    expect(toCommand(['residence', 'accept-cancel', '--reservation', '4']).command).toEqual({ method: 'POST', path: '/admin/reservations/4/accept-cancel' });
  });

  it("an operator's accept-cancel of no reservation is a 404, of a malformed id a 400", async () => {
    const admin = adminClient(stack);
    for (const id of ['77777', '2147483648', '9999999999']) {
      expect(await admin.post(`/admin/reservations/${id}/accept-cancel`)).toMatchObject({ status: 404, body: { error: `reservation ${id} not found` } });
    }
    for (const id of ['abc', '0', '12345678901']) {
      expect(await admin.post(`/admin/reservations/${id}/accept-cancel`)).toMatchObject({
        status: 400,
        body: { error: 'reservation: must be a positive integer id' },
      });
    }
  });
});

/** The reservation once it has `status`, as Interface A shows it; fails after 20 s naming the status seen last. */
async function untilReservationStatus(api: Api, reservationId: string, status: string) {
  const read = async () => (await api.get(`/api/residence/reserve/detail/?reservation_id=${reservationId}`)).body.data;
  let r = await read();
  await waitFor(
    async () => (r = await read()).status === status,
    () => `reservation ${reservationId} to be ${status} (last seen: ${r.status})`,
    20_000,
    200,
  );
  return r;
}

describe('durable deadlines', () => {
  it('expires an unpaid hold and frees the dates; a sandbox host accepts a cancellation by itself', async () => {
    const quick = await startStack({ residenceHoldMs: 2000, hostAcceptMs: 1000 });
    try {
      const { api } = await partnerWithWallet(quick, '0', String(TOPUP));
      const held = await api.post('/api/residence/reserve/', reserveBody(FLEXIBLE, 40, 2));
      const order = await api.post('/api/residence/reserve/book/', { reservation_id: held.body.data.reservation_id });
      expect(order.status).toBe(201);
      const r = await untilReservationStatus(api, held.body.data.reservation_id, 'expired');
      expect(r).toMatchObject({ status: 'expired', order_status: 'expired', seconds_left: 0 });
      expect((await api.post('/api/partners/pay/', { order_id: order.body.data.id })).status).toBe(400);

      const again = await api.post('/api/residence/reserve/', reserveBody(FLEXIBLE, 40, 2));
      expect(again.status).toBe(200);
      const o2 = await api.post('/api/residence/reserve/book/', { reservation_id: again.body.data.reservation_id });
      await api.post('/api/partners/pay/', { order_id: o2.body.data.id });
      await api.post('/api/residence/bookings/cancel/', { reservation_id: again.body.data.reservation_id });
      await untilReservationStatus(api, again.body.data.reservation_id, 'cancelled');
      const refunds = await quick.db
        .select()
        .from(ledgerEntries)
        .where(and(eq(ledgerEntries.orderId, o2.body.data.id), eq(ledgerEntries.type, 'refund')));
      expect(refunds).toHaveLength(1);
      expect(await api.wallet()).toMatchObject({ balance: `${TOPUP}.00` });
      expect(await eventTypesOf(api, order.body.data.id)).toEqual(['order.expired']);
      expect(await eventTypesOf(api, o2.body.data.id)).toEqual(['order.processing', 'order.completed', 'reservation.cancelled']);
    } finally {
      await quick.close();
    }
  });
});

describe('a database step fed data the database refuses (issue 12)', () => {
  it('fails the hold workflow within seconds instead of retrying for ever, with no value in the failure, and writes nothing', async () => {
    const { creds } = await newPartner();
    const holdRef = `residence-hold:bad-date-${Date.now()}`;
    const started = Date.now();
    // Straight to the workflow: whatever the API validates, the worker must not loop on what PostgreSQL refuses.
    const handle = await stack.client.workflow.start('reserveResidence', {
      taskQueue: stack.taskQueue,
      workflowId: holdRef,
      args: [
        {
          partnerId: creds.partner_id,
          holdRef,
          propertyId: FLEXIBLE,
          checkIn: '2027-02-30',
          checkOut: '2027-03-03',
          guests: 2,
          leadGuest,
          ttlMs: 600_000,
          autoAcceptCancelMs: null,
        },
      ],
    });
    // The workflow's failure names the step; the activity's typed failure is its cause's cause.
    const failed = await handle.result().then(
      () => undefined,
      (err: { cause?: { message?: string; cause?: { cause?: { type?: string; message?: string } } } }) => err.cause,
    );
    expect(failed?.message).toMatch(/^holdResidenceDates failed: /);
    const failure = failed?.cause?.cause;
    expect(failure).toMatchObject({ type: 'invalid_data' });
    expect(failure!.message).not.toMatch(/Sara|Ahmadi|0012345679|2027-02-30/);
    expect(Date.now() - started).toBeLessThan(15_000);
    const { events } = await handle.fetchHistory();
    expect(events!.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt)).toEqual([1]);
    expect(await stack.db.select().from(reservations).where(eq(reservations.holdRef, holdRef))).toEqual([]);
  });
});
