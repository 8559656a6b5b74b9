import { and, eq } from 'drizzle-orm';
import { flightBookings, orders, supplierEvents } from '../../src/db/schema';
import { AIRLINE_CHANGE_DETECTED, receiveSupplierEvent } from '../../src/domain/supplier-events';
import { duffelSignature } from '../../src/suppliers/adapters/duffel/webhook-signature';
import { httpSuppliers } from '../../src/suppliers';
import type { Leg } from '../../src/suppliers/flights';
import { scheduleChangeChangedSignal, scheduleChangeWorkflowId } from '../../workflows/schedule-change.types';
import { adminClient, call, newPartner, type Reply } from '../support/clients';
import { eventTypesOf } from '../support/events';
import { day } from '../support/fixtures';
import { contact } from '../support/fixtures';
import { recordHistory } from '../support/histories';
import { startStack, type TestStack, useStack } from '../support/stack';
import { waitFor } from '../support/wait';

/**
 * An airline's schedule change to a ticketed flight (docs/decisions/schedule-changes.md): found
 * by the poll or announced by Duffel's webhook, one workflow per order and change, told to the
 * partner once, then accepted, cancelled with a full refund, or, past the deadline, the default
 * applied and the order in the operators' queue. The simulator's `schedule_change` scenario
 * moves the first flight 3 hours later once the tickets are issued.
 */

const SECRET = 'whsec_duffel_test_0123456789abcdef';
let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000, env: { DUFFEL_WEBHOOK_SECRET: SECRET } });

const TOPUP = '500000000';
const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);
const adult = {
  first_name: 'Reza',
  last_name: 'Karimi',
  birth_date: '1985-04-12',
  gender: 'male',
  passenger_type: 'ADT',
  nationality: 'IR',
  national_id: '0012345679',
};

type Partner = Awaited<ReturnType<typeof newPartner>>;

/** A ticketed flight the airline then moves: the order, its PNR and the airline's order id. */
type Fare = { fare_source_code: string; total_price: string; legs: Leg[] };
const departureOf = (f: Fare) => Date.parse(f.legs[0]!.segments[0]!.departure);
/** Of the day's fares, the one that departs first. */
const firstToLeave = (fares: Fare[]) => fares.reduce((a, b) => (departureOf(b) < departureOf(a) ? b : a));

async function faresOn(api: Partner['api']): Promise<Fare[]> {
  const search = await api.post('/api/flights/search_flights/', {
    origin: 'THR',
    destination: 'MHD',
    departure_date_time: `${day(30)}T00:00:00Z`,
    adult_count: 1,
    cabin_type: 'economy',
    air_trip_type: 'one_way',
  });
  expect(search.status).toBe(200);
  return search.body.data.results as Fare[];
}

async function ticketedAndChanged(on: TestStack, partner: Partner, pick: (fares: Fare[]) => Fare = (fares) => fares[0]!) {
  const { api } = partner;
  const fare = pick(await faresOn(api));
  const booked = await api.post('/api/flights/air_booking/', { fare_source_code: fare.fare_source_code, traveler_info: { contact, air_travelers: [adult] } });
  expect(booked.status).toBe(201);
  const orderId = booked.body.data.id as number;
  const paid = await api.post('/api/partners/pay/', { order_id: orderId, idempotency_key: `fly-${orderId}` }, { 'x-sandbox-scenario': 'schedule_change' });
  expect(paid.status).toBe(200);
  const [booking] = await on.db.select().from(flightBookings).where(eq(flightBookings.orderId, orderId));
  return { orderId, price: fare.total_price, supplierOrderId: booking!.supplierBookingRef!, legs: booking!.legs as Leg[] };
}

/** One round of the poll the workers run, asked for now (`admin schedule-changes poll`): how many workflows it started or joined. */
async function poll(on: TestStack): Promise<number> {
  const res = await adminClient(on).post('/admin/schedule-changes/poll');
  expect(res.status).toBe(200);
  return res.body.started as number;
}

/** The airline's changes to an order, as the simulator lists them. */
const changesAt = (on: TestStack, supplierOrderId: string) => httpSuppliers(on.simulatorUrl).flightAfterSaleOf('simulator').scheduleChanges(supplierOrderId);

/** The order as Interface A answers it (air_booking_data). */
const orderOf = async (api: Partner['api'], orderId: number) => (await api.post('/api/flights/air_booking_data/', { order_id: orderId })).body.data;

async function pendingChange(api: Partner['api'], orderId: number) {
  let order: { order: { schedule_change?: { status: string } } } | undefined;
  await waitFor(async () => {
    order = await orderOf(api, orderId);
    return order?.order.schedule_change?.status === 'pending';
  }, `order ${orderId} to show its schedule change`);
  return order!;
}

/** Duffel's webhook as Duffel sends it: the body, signed at `at` with `secret`. */
function duffelPost(on: TestStack, body: unknown, opts: { at?: Date; secret?: string; signature?: string } = {}): Promise<Reply> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const signature = opts.signature ?? duffelSignature(raw, opts.secret ?? SECRET, opts.at ?? new Date());
  return call(on.app, 'POST', '/webhooks/duffel', { 'content-type': 'application/json', 'x-duffel-signature': signature }, raw);
}

const duffelEvent = (id: string, type: string, object: Record<string, unknown> = {}) => ({
  id,
  api_version: 'v2',
  type,
  live_mode: false,
  idempotency_key: (object.id as string | undefined) ?? id,
  created_at: new Date().toISOString(),
  identity_organisation_id: 'org_0000StandIn',
  data: { object },
});

describe('POST /webhooks/duffel', () => {
  it('takes a well-signed event once by its id (200), and refuses a bad, missing or old signature (401) and a body that is not an event (400)', async () => {
    const event = duffelEvent('wev_0000Ping0001', 'ping.triggered');
    const first = await duffelPost(stack, event);
    expect(first).toMatchObject({ status: 200, body: { received: true, duplicate: false } });
    const again = await duffelPost(stack, event);
    expect(again).toMatchObject({ status: 200, body: { received: true, duplicate: true } });
    const rows = await stack.db.select().from(supplierEvents).where(eq(supplierEvents.eventId, 'wev_0000Ping0001'));
    expect(rows).toEqual([expect.objectContaining({ supplier: 'duffel', type: 'ping.triggered', handledAt: expect.any(Date) })]);

    const other = duffelEvent('wev_0000Ping0002', 'ping.triggered');
    expect(await duffelPost(stack, other, { secret: 'whsec_somebody_else_0123456789' })).toMatchObject({
      status: 401,
      body: { error: 'the signature does not match' },
    });
    expect(await duffelPost(stack, other, { at: new Date(Date.now() - 10 * 60_000) })).toMatchObject({
      status: 401,
      body: { error: expect.stringMatching(/more than 5 minutes from ours/) },
    });
    expect(await duffelPost(stack, other, { at: new Date(Date.now() + 10 * 60_000) })).toMatchObject({ status: 401 });
    expect(await duffelPost(stack, other, { signature: 't=1,v1=zz' })).toMatchObject({
      status: 401,
      body: { error: expect.stringMatching(/not t=<seconds>,v1=<hex>/) },
    });
    const unsigned = await call(stack.app, 'POST', '/webhooks/duffel', { 'content-type': 'application/json' }, JSON.stringify(other));
    expect(unsigned).toMatchObject({ status: 401, body: { error: 'the X-Duffel-Signature header is missing' } });
    // The body is what is signed: a well-signed body that is not JSON, or not an event.
    expect(await duffelPost(stack, '{"id": "wev_1",')).toMatchObject({ status: 400, body: { error: 'the body is not JSON' } });
    expect(await duffelPost(stack, { type: 'ping.triggered' })).toMatchObject({ status: 400 });
    expect(await duffelPost(stack, 'x'.repeat(300 * 1024))).toMatchObject({ status: 413 });
    // None of the refused ones was recorded.
    expect(await stack.db.select().from(supplierEvents).where(eq(supplierEvents.eventId, 'wev_0000Ping0002'))).toEqual([]);
  });

  it('ignores (200, recorded) an airline change to an order the engine does not hold', async () => {
    const res = await duffelPost(stack, duffelEvent('wev_0000Aic00001', AIRLINE_CHANGE_DETECTED, { id: 'aic_0000NotOurs', order_id: 'ord_0000NotOurs' }));
    expect(res).toMatchObject({ status: 200, body: { received: true, duplicate: false } });
  });
});

describe('a schedule change', () => {
  it('announced twice by webhook and found by the poll twice starts one workflow and tells the partner once', async () => {
    const partner = await newPartner(stack, '0', TOPUP);
    const { orderId, supplierOrderId } = await ticketedAndChanged(stack, partner);
    const [change] = await changesAt(stack, supplierOrderId);
    expect(change).toMatchObject({ order_id: supplierOrderId, action_taken: null });
    // The webhook's hand-over, as POST /webhooks/duffel makes it for an order Duffel holds (here the simulator holds it).
    const announce = () =>
      receiveSupplierEvent({ db: stack.db, temporal: stack.client, taskQueue: stack.taskQueue }, 'simulator', {
        id: 'wev_0000Twice',
        type: AIRLINE_CHANGE_DETECTED,
        change: { id: change!.change_id, order_id: supplierOrderId },
      });
    expect(await announce()).toEqual({ duplicate: false, started: true });
    expect(await poll(stack)).toBeLessThanOrEqual(1);
    expect(await announce()).toEqual({ duplicate: true, started: false });
    await pendingChange(partner.api, orderId);
    expect(await poll(stack)).toBe(0);

    const runs = stack.client.workflow.list({ query: `WorkflowType = "scheduleChange" AND OrderId = ${orderId}` });
    const ids: string[] = [];
    await waitFor(async () => {
      ids.length = 0;
      for await (const wf of runs) ids.push(wf.workflowId);
      return ids.length > 0;
    }, 'the workflow to be listed');
    expect(ids).toEqual([scheduleChangeWorkflowId(orderId, change!.change_id)]);
    expect(await eventTypesOf(partner.api, orderId)).toEqual(['order.processing', 'order.completed', 'order.schedule_changed']);
  });

  it('accepted by the partner: the airline is told, the order has its new legs, order.schedule_change_resolved', async () => {
    const partner = await newPartner(stack, '0', TOPUP);
    const { orderId, supplierOrderId, legs } = await ticketedAndChanged(stack, partner);
    expect(await poll(stack)).toBeGreaterThanOrEqual(1);
    const before = await pendingChange(partner.api, orderId);
    const [change] = await changesAt(stack, supplierOrderId);
    expect(before.order.schedule_change).toMatchObject({
      change_id: change!.change_id,
      status: 'pending',
      default_decision: 'accept',
      decide_by: expect.any(String),
      removed: [{ segments: [expect.objectContaining({ origin: 'THR', departure: legs[0]!.segments[0]!.departure })] }],
      added: [{ segments: [expect.objectContaining({ origin: 'THR' })] }],
    });
    const movedTo = (before.order.schedule_change as unknown as { added: Leg[] }).added[0]!.segments[0]!.departure;
    expect(Date.parse(movedTo) - Date.parse(legs[0]!.segments[0]!.departure)).toBe(3 * 3_600_000);

    const refused = await partner.api.post('/api/flights/air_schedule_change/', { order_id: orderId, decision: 'maybe' });
    expect(refused).toMatchObject({ status: 400, body: { ok: false, error: expect.stringMatching(/^decision: /) } });
    const other = await newPartner(stack, '0', TOPUP);
    expect((await other.api.post('/api/flights/air_schedule_change/', { order_id: orderId, decision: 'accept' })).status).toBe(404);

    const res = await partner.api.post('/api/flights/air_schedule_change/', { order_id: orderId, decision: 'accept' });
    expect(res).toMatchObject({
      status: 200,
      body: { ok: true, data: { order_id: orderId, change_id: change!.change_id, decision: 'accept', status: 'accepted' } },
    });
    const after = await orderOf(partner.api, orderId);
    expect(after.order).toMatchObject({ status: 'completed', schedule_change: { status: 'accepted', resolved_by: 'partner' } });
    expect(after.booking.legs[0].segments[0].departure).toBe(movedTo);
    expect((await changesAt(stack, supplierOrderId))[0]).toMatchObject({ action_taken: 'accepted' });
    expect(await eventTypesOf(partner.api, orderId)).toEqual([
      'order.processing',
      'order.completed',
      'order.schedule_changed',
      'order.schedule_change_resolved',
    ]);
    const again = await partner.api.post('/api/flights/air_schedule_change/', { order_id: orderId, decision: 'cancel' });
    expect(again).toMatchObject({ status: 400, body: { error: expect.stringMatching(/no schedule change of order \d+ waits for a decision/) } });
    await recordHistory(stack, scheduleChangeWorkflowId(orderId, change!.change_id), 'schedule-change-accepted');
  });

  it('accepted while the airline loses its answers: the airline is asked before trying again, and accepts once', async () => {
    const partner = await newPartner(stack, '0', TOPUP);
    const { orderId, supplierOrderId } = await ticketedAndChanged(stack, partner);
    await poll(stack);
    await pendingChange(partner.api, orderId);
    const res = await partner.api.post(
      '/api/flights/air_schedule_change/',
      { order_id: orderId, decision: 'accept' },
      { 'x-sandbox-scenario': 'supplier_lost_response' },
    );
    expect(res).toMatchObject({ status: 200, body: { data: { status: 'accepted' } } });
    const [change] = await changesAt(stack, supplierOrderId);
    expect(change).toMatchObject({ action_taken: 'accepted' });
    // The first attempt's acceptance was made and its answer lost; the second found it made.
    const { events } = await stack.client.workflow.getHandle(scheduleChangeWorkflowId(orderId, change!.change_id)).fetchHistory();
    const scheduled = events!.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'acceptScheduleChangeAtAirline')!;
    const started = events!.find((e) => Number(e.activityTaskStartedEventAttributes?.scheduledEventId) === Number(scheduled.eventId));
    expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(2);
  });

  it('replaced by a change the partner made: the signal scheduleChangeChanged ends it as changed', async () => {
    const partner = await newPartner(stack, '0', TOPUP);
    const { orderId, supplierOrderId } = await ticketedAndChanged(stack, partner);
    await poll(stack);
    await pendingChange(partner.api, orderId);
    const [change] = await changesAt(stack, supplierOrderId);
    const handle = stack.client.workflow.getHandle(scheduleChangeWorkflowId(orderId, change!.change_id));
    await handle.signal(scheduleChangeChangedSignal, { orderChangeId: 'OC-000001' });
    expect(await handle.result()).toMatchObject({ status: 'changed', resolvedBy: 'change', refund: null });
    expect((await orderOf(partner.api, orderId)).order).toMatchObject({ status: 'completed', schedule_change: { status: 'changed', resolved_by: 'change' } });
    expect(await eventTypesOf(partner.api, orderId)).toEqual([
      'order.processing',
      'order.completed',
      'order.schedule_changed',
      'order.schedule_change_resolved',
    ]);
    expect((await partner.api.post('/api/flights/air_schedule_change/', { order_id: orderId, decision: 'accept' })).status).toBe(400);
  });

  it('cancelled by the partner: the order is refunded in full, the books reconcile', async () => {
    const partner = await newPartner(stack, '0', TOPUP);
    const { orderId, supplierOrderId, price } = await ticketedAndChanged(stack, partner);
    await poll(stack);
    await pendingChange(partner.api, orderId);
    const res = await partner.api.post('/api/flights/air_schedule_change/', { order_id: orderId, decision: 'cancel' });
    expect(res).toMatchObject({ status: 200, body: { data: { status: 'cancelled', refund_amount: price, ledger_id: expect.any(Number) } } });
    expect(minor((await partner.api.wallet()).balance)).toBe(minor(TOPUP));
    const [order] = await stack.db.select().from(orders).where(eq(orders.id, orderId));
    expect(order!.status).toBe('refunded');
    expect(await eventTypesOf(partner.api, orderId)).toEqual([
      'order.processing',
      'order.completed',
      'order.schedule_changed',
      'refund.completed',
      'order.schedule_change_resolved',
    ]);
    const reconciled = await adminClient(stack).get('/admin/reconcile');
    expect(reconciled.body).toMatchObject({ ok: true, findings: [] });
    const [change] = await changesAt(stack, supplierOrderId);
    await recordHistory(stack, scheduleChangeWorkflowId(orderId, change!.change_id), 'schedule-change-cancelled');
  });
});

describe('past the deadline', () => {
  let late: TestStack;
  beforeAll(async () => {
    // The partner's time is over before it begins: the deadline is a year before departure.
    late = await startStack({ payWaitMs: 15_000, env: { SCHEDULE_CHANGE_DECISION_HOURS: '8760', SCHEDULE_CHANGE_DEFAULT: 'accept' } });
  });
  afterAll(async () => {
    await late?.close();
  });

  it('applies the default, tells the partner, and waits in the operators’ queue until one looks', async () => {
    const partner = await newPartner(late, '0', TOPUP);
    const { orderId, supplierOrderId } = await ticketedAndChanged(late, partner);
    await poll(late);
    const [change] = await changesAt(late, supplierOrderId);
    const workflowId = scheduleChangeWorkflowId(orderId, change!.change_id);
    const admin = adminClient(late);
    let parked: Reply | undefined;
    await waitFor(async () => {
      parked = await admin.get('/admin/needs-attention');
      return (parked.body.results as { workflow_id: string }[]).some((p) => p.workflow_id === workflowId);
    }, 'the schedule change to wait in needs-attention');
    expect((parked!.body.results as { workflow_id: string }[]).find((p) => p.workflow_id === workflowId)).toMatchObject({
      order_id: orderId,
      state: { step: 'needs_attention', parkedAt: 'default_applied', resolvedBy: 'default', decision: 'accept' },
    });
    expect((await orderOf(partner.api, orderId)).order.schedule_change).toMatchObject({ status: 'accepted', resolved_by: 'default' });
    expect((await changesAt(late, supplierOrderId))[0]).toMatchObject({ action_taken: 'accepted' });
    expect(await eventTypesOf(partner.api, orderId)).toEqual([
      'order.processing',
      'order.completed',
      'order.schedule_changed',
      'order.schedule_change_resolved',
    ]);
    const inspected = await admin.get(`/admin/orders/${orderId}`);
    expect(inspected.body.events.map((e: { type: string }) => e.type)).toContain('order.needs_attention');

    expect((await admin.post(`/admin/orders/${orderId}/compensate`, { reason: 'undo' })).status).toBe(409);
    const looked = await admin.post(`/admin/orders/${orderId}/retry`, { reason: 'partner told by phone' });
    expect(looked.status).toBe(200);
    await waitFor(async () => (await late.client.workflow.getHandle(workflowId).describe()).status.name === 'COMPLETED', 'the workflow to end');
    expect(await late.client.workflow.getHandle(workflowId).result()).toMatchObject({ status: 'accepted', resolvedBy: 'default' });
    await recordHistory(late, workflowId, 'schedule-change-default-applied');
    const [stillThere] = await late.db
      .select()
      .from(flightBookings)
      .where(and(eq(flightBookings.orderId, orderId)));
    expect(stillThere!.status).toBe('ticketed');
  });

  it('answers 404 on POST /webhooks/duffel without DUFFEL_WEBHOOK_SECRET', async () => {
    const res = await duffelPost(late, duffelEvent('wev_0000NoSecret', 'ping.triggered'));
    expect(res.status).toBe(404);
  });
});

describe('before the deadline', () => {
  let timed: TestStack;
  beforeAll(async () => {
    // The simulated airline flies the same timetable on every start: the day's first flight is
    // known before the stack that sells it starts, and its deadline set 40 s from now, the
    // reminder 15 s before that.
    const departs = departureOf(firstToLeave(await faresOn((await newPartner(stack, '0', TOPUP)).api)));
    const hours = (ms: number) => String(ms / 3_600_000);
    timed = await startStack({
      payWaitMs: 15_000,
      env: { SCHEDULE_CHANGE_DECISION_HOURS: hours(departs - (Date.now() + 40_000)), SCHEDULE_CHANGE_REMINDER_HOURS: hours(15_000) },
    });
  });
  afterAll(async () => {
    await timed?.close();
  });

  it('reminds the partner once (order.schedule_changed again, reminded_at set), then applies the default', async () => {
    const partner = await newPartner(timed, '0', TOPUP);
    const { orderId, supplierOrderId } = await ticketedAndChanged(timed, partner, firstToLeave);
    await poll(timed);
    const told = await pendingChange(partner.api, orderId);
    expect(told.order.schedule_change).toMatchObject({ reminded_at: null });
    const decideBy = Date.parse((told.order.schedule_change as unknown as { decide_by: string }).decide_by);
    expect(decideBy - Date.now()).toBeGreaterThan(15_000);
    await waitFor(async () => (await orderOf(partner.api, orderId)).order.schedule_change.reminded_at !== null, 'the reminder', 40_000, 500);
    const reminded = (await orderOf(partner.api, orderId)).order.schedule_change;
    expect(reminded).toMatchObject({ status: 'pending' });
    expect(Math.abs(decideBy - 15_000 - Date.parse(reminded.reminded_at))).toBeLessThan(5_000);
    await waitFor(async () => (await orderOf(partner.api, orderId)).order.schedule_change.status !== 'pending', 'the default', 40_000, 500);
    expect((await orderOf(partner.api, orderId)).order.schedule_change).toMatchObject({ status: 'accepted', resolved_by: 'default' });
    expect(await eventTypesOf(partner.api, orderId)).toEqual([
      'order.processing',
      'order.completed',
      'order.schedule_changed',
      'order.schedule_changed',
      'order.schedule_change_resolved',
    ]);
    expect((await adminClient(timed).post(`/admin/orders/${orderId}/retry`, { reason: 'partner called' })).status).toBe(200);
    const [change] = await changesAt(timed, supplierOrderId);
    await recordHistory(timed, scheduleChangeWorkflowId(orderId, change!.change_id), 'schedule-change-reminded');
  }, 120_000);
});
