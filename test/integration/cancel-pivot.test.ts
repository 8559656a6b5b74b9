import { WorkflowFailedError } from '@temporalio/client';
import { and, asc, eq } from 'drizzle-orm';
import { ledgerEntries, orders } from '../../src/db/schema';
import { toCommand } from '../../src/cli/admin';
import { SEED_PROPERTIES } from '../../src/db/seed/residence-data';
import { adminClient, call, newPartner as partnerWithWallet, type partnerClient } from '../support/clients';
import { arm, disarmAll, faultInjector, undefinedColumn } from '../support/faults';
import { operatorNotesOf } from '../support/events';
import { recordHistory } from '../support/histories';
import { untilParked } from '../support/parked';
import { type TestStack, useStack } from '../support/stack';
import { waitFor } from '../support/wait';
import { SupplierRejectedError } from '../../src/suppliers/errors';
import { operatorDecisionSignal } from '../../workflows/pay.types';
import { Stage } from '../../workflows/search-attributes';
import { contact, day } from '../support/fixtures';

/**
 * A cancellation's pivot: once the supplier cancelled or refunded, the partner's
 * refund is written or the workflow parks for an operator's retry; it never fails with the
 * partner un-refunded. And a workflow that fails ends in Stage = "failed", naming its step.
 */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 3_000, activityInterceptors: [faultInjector] });
afterEach(disarmAll);

type Api = ReturnType<typeof partnerClient>;
const TOPUP = '500000000';
const newPartner = () => partnerWithWallet(stack, '0', TOPUP);
const iranian = { first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', national_id: '0012345679' };
const adult = { ...iranian, first_name: 'Reza', last_name: 'Karimi', birth_date: '1985-04-12', gender: 'male', passenger_type: 'ADT' };

const refunds = async (orderId: number) =>
  stack.db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.orderId, orderId), eq(ledgerEntries.type, 'refund')));
const statusOf = async (orderId: number) => (await stack.db.select().from(orders).where(eq(orders.id, orderId)))[0]!.status;
const paid = async (api: Api, orderId: number) => expect((await api.post('/api/partners/pay/', { order_id: orderId })).status).toBe(200);

/** A paid, refundable hotel order. */
async function paidHotelOrder(api: Api): Promise<number> {
  const search = { check_in: day(40), check_out: day(42), nationality_id: 'IR', rooms: [{ adult_count: 2 }], city_id: 1 };
  const hotels = (await api.post('/api/hotel/search_hotels/', search)).body.data.results;
  const rate = hotels.flatMap((h: { rates: Array<{ refundable: boolean; rate_key: string }> }) => h.rates).find((r: { refundable: boolean }) => r.refundable);
  const booked = await api.post('/api/hotel/book/', { rate_key: rate.rate_key, guests: [[iranian]], contact });
  const ordered = await api.post('/api/hotel/order/', { booking_id: booked.body.data.booking_id });
  await paid(api, ordered.body.data.id);
  return ordered.body.data.id;
}

/** A paid, ticketed flight order. */
async function paidFlightOrder(api: Api): Promise<number> {
  const search = {
    origin: 'THR',
    destination: 'MHD',
    departure_date_time: `${day(30)}T00:00:00Z`,
    adult_count: 1,
    cabin_type: 'economy',
    air_trip_type: 'one_way',
  };
  const offers = (await api.post('/api/flights/search_flights/', search)).body.data.results;
  const fare = offers.find((o: { fare_family: string }) => o.fare_family === 'Standard');
  const booked = await api.post('/api/flights/air_booking/', { fare_source_code: fare.fare_source_code, traveler_info: { contact, air_travelers: [adult] } });
  await paid(api, booked.body.data.id);
  return booked.body.data.id;
}

/** Waits until the order's cancellation is parked after the supplier cancelled; returns what the operator sees. */
const parked = (orderId: number) => untilParked(stack, orderId, { workflow: 'cancellation', at: 'refunding' });

/** The operator's list of parked workflows, once Temporal's visibility shows this one. */
async function listed(workflowId: string) {
  let found: unknown;
  await waitFor(
    async () => {
      const list = await adminClient(stack).get('/admin/needs-attention');
      found = list.body.results.find((r: { workflow_id: string }) => r.workflow_id === workflowId);
      return found !== undefined;
    },
    `${workflowId} in the operator's list of parked workflows`,
    15_000,
    300,
  );
  return found;
}

/**
 * The operator's part, the same for every cancellation: confirm and compensate are refused,
 * a raw compensate signal leaves it parked, retry writes the refund once.
 */
async function operatorRetries(orderId: number, workflowId: string) {
  const admin = adminClient(stack);
  for (const action of ['confirm', 'compensate']) {
    const refused = await admin.post(`/admin/orders/${orderId}/${action}`, { reason: `try ${action}` });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/the supplier already cancelled.*retry writes the refund/);
  }
  await stack.client.workflow.getHandle(workflowId).signal(operatorDecisionSignal, { action: 'compensate', operator: 'raw', reason: 'bypassing the API' });
  await new Promise((r) => setTimeout(r, 500));
  expect((await parked(orderId)).cancellation.state.lastError).toMatch(/^compensate by raw refused: the supplier already cancelled/);
  expect(await refunds(orderId)).toEqual([]);

  disarmAll();
  const retried = await admin.post(`/admin/orders/${orderId}/retry`, { reason: 'column restored' });
  expect(retried.status).toBe(200);
  expect(retried.body.cancellation).toMatchObject({ workflow_id: workflowId });
  return retried.body;
}

describe('a cancellation whose refund cannot be written after the supplier cancelled', () => {
  it('hotel: parks with the hotel confirmation and the failed step, is listed, and an operator retry refunds once and cancels', async () => {
    const { api, creds } = await newPartner();
    const orderId = await paidHotelOrder(api);
    const balancePaid = (await api.wallet()).balance;
    const fault = arm({ step: 'completeHotelCancellation', orderId, error: undefinedColumn });

    const res = await api.post('/api/hotel/cancel/', { order_id: orderId });
    expect(res.status).toBe(202);
    const seen = await parked(orderId);
    expect(fault.attempts).toBe(1);
    expect(seen.order.status).toBe('completed');
    expect(seen.cancellation.state).toMatchObject({
      orderId,
      supplierRef: expect.stringMatching(/^CNF-/),
      failedStep: 'completeHotelCancellation',
      lastError: expect.stringMatching(new RegExp(`^writing the refund of cancelled hotel order ${orderId} failed: database error 42703`)),
    });
    const workflowId = `cancel:p${creds.partner_id}:order:${orderId}`;
    expect(await listed(workflowId)).toMatchObject({
      kind: 'cancellation',
      workflow_type: 'cancelHotelOrder',
      order_id: orderId,
      state: { parkedAt: 'refunding' },
    });
    // Asking again joins the parked cancellation; nothing is lost or written twice.
    expect((await api.post('/api/hotel/cancel/', { order_id: orderId })).status).toBe(202);
    expect(await refunds(orderId)).toEqual([]);
    expect((await api.wallet()).balance).toBe(balancePaid);

    const after = await operatorRetries(orderId, workflowId);
    expect(after.order.status).toBe('cancelled');
    expect(await refunds(orderId)).toHaveLength(1);
    expect(await api.wallet()).toMatchObject({ balance: `${TOPUP}.00` });
    await expect(stack.client.workflow.getHandle(workflowId).result()).resolves.toMatchObject({ orderId });
    expect((await api.post('/api/hotel/booking_data/', { order_id: orderId })).body.data.booking.status).toBe('cancelled');
    await recordHistory(stack, workflowId, 'hotel-cancel-parked-retried');
  });

  it('flight: an online refund parks with the PNR after the airline refunded; retry refunds once', async () => {
    const { api, creds } = await newPartner();
    const orderId = await paidFlightOrder(api);
    arm({ step: 'completeFlightRefund', orderId, error: undefinedColumn });

    expect((await api.post('/api/flights/air_refund/', { order_id: orderId })).status).toBe(202);
    const seen = await parked(orderId);
    expect(seen.cancellation.state).toMatchObject({ supplierRef: expect.stringMatching(/^[A-Z0-9]{6}$/), failedStep: 'completeFlightRefund' });
    const workflowId = `refund:p${creds.partner_id}:order:${orderId}`;

    const after = await operatorRetries(orderId, workflowId);
    expect(after.order.status).toBe('refunded');
    expect(await refunds(orderId)).toHaveLength(1);
    await recordHistory(stack, workflowId, 'flight-refund-parked-retried');
  });

  it('flight: an offline refund the operator approved parks when its refund cannot be written; retry refunds the approved amount once', async () => {
    const { api } = await newPartner();
    const orderId = await paidFlightOrder(api);
    const balancePaid = (await api.wallet()).balance;
    expect((await api.post('/api/flights/air_refund_offline/', { order_id: orderId, reason: 'flight cancelled by the airline' })).status).toBe(200);
    arm({ step: 'completeFlightRefund', orderId, error: undefinedColumn });

    // The operator settled 1,000,000 with the airline; the wallet's refund cannot be written yet.
    const approved = await adminClient(stack).post(`/admin/orders/${orderId}/refund`, { amount: '1000000', reason: 'airline settled' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ order_id: orderId, status: 'deciding' });
    const seen = await parked(orderId);
    expect(seen.order.status).toBe('refund_requested');
    expect(seen.cancellation.state).toMatchObject({
      orderId,
      failedStep: 'completeFlightRefund',
      lastError: expect.stringMatching(new RegExp(`^writing the offline refund of flight order ${orderId} failed: database error 42703`)),
    });
    const workflowId = `refund-offline:order:${orderId}`;
    expect(await listed(workflowId)).toMatchObject({ kind: 'cancellation', workflow_type: 'offlineFlightRefund', order_id: orderId });
    expect(await refunds(orderId)).toEqual([]);
    expect((await api.wallet()).balance).toBe(balancePaid);

    const after = await operatorRetries(orderId, workflowId);
    expect(after.order.status).toBe('refunded');
    expect((await refunds(orderId)).map((r) => r.amount)).toEqual([100_000_000]);
    await expect(stack.client.workflow.getHandle(workflowId).result()).resolves.toMatchObject({ approved: true, result: { refundMinor: 100_000_000 } });
    await recordHistory(stack, workflowId, 'flight-refund-offline-parked-retried');
  });

  it('residence: the settle step parks after the host cancelled; retry refunds once and the stay ends cancelled', async () => {
    const { api } = await newPartner();
    const property = SEED_PROPERTIES.findIndex((p) => p.code === 'RS-RMSR-02') + 1; // flexible
    const held = await api.post('/api/residence/reserve/', {
      property_id: property,
      check_in: day(120),
      check_out: day(122),
      guests: 2,
      lead_guest: { ...iranian, phone_number: contact.phone_number },
    });
    expect(held.status).toBe(200);
    const reservationId = held.body.data.reservation_id;
    const order = await api.post('/api/residence/reserve/book/', { reservation_id: reservationId });
    const orderId = order.body.data.id;
    await paid(api, orderId);
    arm({ step: 'settleResidenceCancel', error: undefinedColumn });

    expect((await api.post('/api/residence/bookings/cancel/', { reservation_id: reservationId })).body.data.status).toBe('cancel_requested');
    await adminClient(stack).post(`/admin/reservations/${reservationId}/accept-cancel`);
    const seen = await parked(orderId);
    expect(seen.cancellation.state).toMatchObject({ reservationId, supplierRef: expect.stringMatching(/^HOST-/), failedStep: 'settleResidenceCancel' });
    const workflowId = `residence-reservation:r${reservationId}`;
    // A stay's cancellation names its reservation, not its order: the operators' event finds the order through it.
    const notes = () => operatorNotesOf(adminClient(stack), orderId);
    await waitFor(async () => (await notes()).length > 0, 'the needs_attention event');
    expect(await notes()).toEqual([{ workflow_id: workflowId, parked_at: 'refunding', last_error: expect.stringMatching(/database error 42703/) }]);

    const after = await operatorRetries(orderId, workflowId);
    expect(after.order.status).toBe('cancelled');
    expect(await refunds(orderId)).toHaveLength(1);
    await expect(stack.client.workflow.getHandle(workflowId).result()).resolves.toEqual({ outcome: 'cancelled' });
    await recordHistory(stack, workflowId, 'residence-cancel-parked-retried');
  });
});

describe('a villa stay cancellation the host accepted, whose host system cannot be told', () => {
  /** A paid stay whose cancellation was requested; the host has accepted it once `accept` is called. */
  async function requestedStay(api: Api, from: number) {
    const property = SEED_PROPERTIES.findIndex((p) => p.code === 'RS-RMSR-02') + 1; // flexible
    const held = await api.post('/api/residence/reserve/', {
      property_id: property,
      check_in: day(from),
      check_out: day(from + 2),
      guests: 2,
      lead_guest: { ...iranian, phone_number: contact.phone_number },
    });
    const reservationId = held.body.data.reservation_id as number;
    const orderId = (await api.post('/api/residence/reserve/book/', { reservation_id: reservationId })).body.data.id as number;
    await paid(api, orderId);
    const requested = await api.post('/api/residence/bookings/cancel/', { reservation_id: reservationId });
    expect(requested.body.data.status).toBe('cancel_requested');
    return { reservationId, orderId, refund: requested.body.data.refund_amount as string, workflowId: `residence-reservation:r${reservationId}` };
  }
  const hostRefuses = () => new SupplierRejectedError('the host system refused the cancellation', 422);

  it('parks instead of failing; compensate is refused, retry tells the host again and refunds once', async () => {
    const { api } = await newPartner();
    const { reservationId, orderId, refund, workflowId } = await requestedStay(api, 140);
    arm({ step: 'cancelAtHost', error: hostRefuses });
    await adminClient(stack).post(`/admin/reservations/${reservationId}/accept-cancel`);

    const seen = await untilParked(stack, orderId, { workflow: 'cancellation', at: 'cancelling_at_host' });
    expect(seen.cancellation.state).toMatchObject({
      reservationId,
      failedStep: 'cancelAtHost',
      lastError: expect.stringMatching(/^cancelling residence reservation \d+ at the host failed: the host system refused the cancellation/),
    });
    expect((await stack.client.workflow.getHandle(workflowId).describe()).status.name).toBe('RUNNING');
    expect(await refunds(orderId)).toEqual([]);
    const wrong = await adminClient(stack).post(`/admin/orders/${orderId}/compensate`, { reason: 'try compensate' });
    expect([wrong.status, wrong.body.error]).toEqual([
      409,
      expect.stringMatching(/telling the host of a cancellation it accepted: .*retry tells the host again/),
    ]);

    disarmAll();
    const retried = await adminClient(stack).post(`/admin/orders/${orderId}/retry`, { reason: 'host system back' });
    expect(retried.status).toBe(200);
    expect(retried.body.order.status).toBe('cancelled');
    expect((await refunds(orderId)).map((r) => r.amount)).toEqual([Math.round(Number(refund) * 100)]);
    await expect(stack.client.workflow.getHandle(workflowId).result()).resolves.toEqual({ outcome: 'cancelled' });
    await recordHistory(stack, workflowId, 'residence-cancel-at-host-parked-retried');
  });

  it('confirm records that the host did cancel, without telling its system again, and refunds once', async () => {
    const { api } = await newPartner();
    const { reservationId, orderId, refund, workflowId } = await requestedStay(api, 145);
    const fault = arm({ step: 'cancelAtHost', error: hostRefuses });
    await adminClient(stack).post(`/admin/reservations/${reservationId}/accept-cancel`);
    await untilParked(stack, orderId, { workflow: 'cancellation', at: 'cancelling_at_host' });

    const confirmed = await adminClient(stack).post(`/admin/orders/${orderId}/confirm`, { reason: 'host portal shows it cancelled' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.order.status).toBe('cancelled');
    expect(fault.attempts).toBe(1);
    expect((await refunds(orderId)).map((r) => r.amount)).toEqual([Math.round(Number(refund) * 100)]);
    await expect(stack.client.workflow.getHandle(workflowId).result()).resolves.toEqual({ outcome: 'cancelled' });
  });
});

describe('a villa stay change the host refused, whose undo cannot be written', () => {
  it('is owed: the stay parks undoing it, refuses other changes and a cancellation meanwhile, and an operator retry undoes it once', async () => {
    const { api } = await newPartner();
    const property = SEED_PROPERTIES.findIndex((p) => p.code === 'RS-RMSR-02') + 1; // flexible
    const stay = { check_in: day(130), check_out: day(132), guests: 2 };
    const held = await api.post('/api/residence/reserve/', { property_id: property, ...stay, lead_guest: { ...iranian, phone_number: contact.phone_number } });
    const reservationId = held.body.data.reservation_id;
    const orderId = (await api.post('/api/residence/reserve/book/', { reservation_id: reservationId })).body.data.id;
    await paid(api, orderId);
    const detail = async () => (await api.get(`/api/residence/reserve/detail/?reservation_id=${reservationId}`)).body.data;
    const before = await detail();
    const balance = (await api.wallet()).balance;
    // The host's record is cancelled (as a host may do): it refuses any change.
    const host = `${stack.simulatorUrl}/residence/bookings/${encodeURIComponent(before.confirmation_number)}`;
    expect((await fetch(`${host}/cancel`, { method: 'POST', body: '{}' })).status).toBe(200);
    arm({ step: 'undoResidenceStayChange', error: undefinedColumn });

    const refused = await api.post('/api/residence/bookings/modify/', { reservation_id: reservationId, ...stay, check_out: day(134) });
    expect(refused.status).toBe(502);
    expect(refused.body.error).toMatch(
      /^the host refused the change \(.*\); it could not be undone here yet \(database error 42703.*\): the stay and the wallet show the change until it is; it is retried, and an operator is told if it cannot be written$/,
    );
    const seen = await untilParked(stack, orderId, { workflow: 'cancellation', at: 'undoing_change' });
    const workflowId = `residence-reservation:r${reservationId}`;
    expect(seen.cancellation).toMatchObject({ workflow_id: workflowId });
    expect(seen.cancellation.state).toMatchObject({
      reservationId,
      failedStep: 'undoResidenceStayChange',
      lastError: expect.stringMatching(/^undoing change 1 of residence reservation/),
    });
    expect(await listed(workflowId)).toMatchObject({ kind: 'cancellation', workflow_type: 'residenceReservation' });
    await waitFor(async () => (await operatorNotesOf(adminClient(stack), orderId)).length > 0, 'the needs_attention event');
    expect(await operatorNotesOf(adminClient(stack), orderId)).toEqual([
      { workflow_id: workflowId, parked_at: 'undoing_change', last_error: expect.stringMatching(/database error 42703/) },
    ]);
    // Meanwhile the stay shows the change, and nothing else may move it.
    expect(await detail()).toMatchObject({ check_out: day(134) });
    const again = await api.post('/api/residence/bookings/modify/', { reservation_id: reservationId, ...stay, check_out: day(133) });
    expect([again.status, again.body.error]).toEqual([409, 'an earlier change of this stay was refused and is being undone; try again once it is']);
    expect((await api.post('/api/residence/bookings/cancel/', { reservation_id: reservationId })).status).toBe(409);
    for (const action of ['confirm', 'compensate']) {
      const wrong = await adminClient(stack).post(`/admin/orders/${orderId}/${action}`, { reason: `try ${action}` });
      expect([wrong.status, wrong.body.error]).toEqual([409, expect.stringMatching(/parked undoing a change the host did not take: .*retry writes/)]);
    }

    disarmAll();
    const asked = Date.now();
    const retried = await adminClient(stack).post(`/admin/orders/${orderId}/retry`, { reason: 'column restored' });
    // The command answers once the undo is written (the order's status does not move), not at its wait bound (3 s here).
    expect(Date.now() - asked).toBeLessThan(2_500);
    expect(retried.status).toBe(200);
    expect(retried.body.cancellation.state).toMatchObject({ step: 'cancelling', lastError: null });
    expect(retried.body.ledger.map((l: { step: string }) => l.step)).toEqual([expect.any(String), 'modify-1', 'modify-1-undo']);
    expect(await detail()).toMatchObject({ ...stay, total_price: before.total_price, status: 'confirmed' });
    expect((await api.wallet()).balance).toBe(balance);
    const moves = await stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, orderId)).orderBy(asc(ledgerEntries.id));
    expect(moves.map((m) => [m.direction, m.reversesEntryId === null ? null : 'reversal'])).toEqual([
      ['debit', null],
      ['debit', null],
      ['credit', 'reversal'],
    ]);
    await waitFor(
      async () => (await adminClient(stack).get(`/admin/orders/${orderId}`)).body.cancellation.state.step !== 'needs_attention',
      'the stay back from parking',
    );
    // Once undone, the stay takes a change and a cancellation again.
    expect((await api.post('/api/residence/bookings/cancel/', { reservation_id: reservationId })).body.data).toMatchObject({
      status: 'cancel_requested',
      refund_amount: before.total_price,
    });
    await adminClient(stack).post(`/admin/reservations/${reservationId}/accept-cancel`);
    await expect(stack.client.workflow.getHandle(workflowId).result()).resolves.toEqual({ outcome: 'cancelled' });
    expect((await api.wallet()).balance).toBe(`${TOPUP}.00`);
    await recordHistory(stack, workflowId, 'residence-reservation-undo-owed-retried');
  });
});

describe('a workflow that fails', () => {
  it('ends in Stage = "failed" with a failure naming the step, and the API answers as before', async () => {
    const { api, creds } = await newPartner();
    const orderId = await paidHotelOrder(api);
    arm({ step: 'beginHotelCancellation', orderId, error: undefinedColumn });

    const res = await api.post('/api/hotel/cancel/', { order_id: orderId });
    expect(res.status).toBe(500);
    const workflowId = `cancel:p${creds.partner_id}:order:${orderId}`;
    const handle = stack.client.workflow.getHandle(workflowId);
    const failure = await handle.result().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause?.message).toMatch(/^beginHotelCancellation failed: database error 42703/);
    expect((await handle.describe()).typedSearchAttributes.get(Stage)).toBe('failed');
    expect(await statusOf(orderId)).toBe('completed');
    await recordHistory(stack, workflowId, 'hotel-cancel-failed');

    // Nothing changed: the cancellation can be asked again (a failed run's id is reused).
    disarmAll();
    expect((await api.post('/api/hotel/cancel/', { order_id: orderId })).status).toBe(200);
  });

  it('the CLI lists parked workflows', () => {
    expect(toCommand(['needs-attention']).command).toEqual({ method: 'GET', path: '/admin/needs-attention' });
  });
});

describe('Interface B: DELETE while the hotel cancellation is parked', () => {
  it('answers 202 cancelling with the refund so far (it said cancelled before), then 200 cancelled once an operator retried', async () => {
    const { creds } = await newPartner();
    const b = { authorization: `Bearer ${creds.agency_key}`, 'content-type': 'application/json' };
    const booking = {
      hotel_id: '410',
      room_id: 'STD-RO-FLEX',
      guest_name: 'Sara Ahmadi',
      guest_email: 'sara@example.com',
      check_in: day(40),
      check_out: day(42),
    };
    const created = await call(stack.app, 'POST', '/v1/hotels/bookings', b, booking);
    expect(created.status).toBe(201);
    const [row] = await stack.db
      .select()
      .from(orders)
      .where(and(eq(orders.partnerId, creds.partner_id), eq(orders.service, 'hotel')));
    arm({ step: 'completeHotelCancellation', orderId: row!.id, error: undefinedColumn });

    const first = await call(stack.app, 'DELETE', `/v1/hotels/bookings/${created.body.booking_id}`, b);
    expect([first.status, first.body]).toEqual([202, { booking_id: created.body.booking_id, status: 'cancelling', refund_amount: 0, currency: 'IRT' }]);
    await parked(row!.id);
    disarmAll();
    expect((await adminClient(stack).post(`/admin/orders/${row!.id}/retry`, { reason: 'column restored' })).status).toBe(200);
    const second = await call(stack.app, 'DELETE', `/v1/hotels/bookings/${created.body.booking_id}`, b);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: 'cancelled', refund_amount: expect.any(Number) });
    expect(second.body.refund_amount).toBeGreaterThan(0);
    expect(await refunds(row!.id)).toHaveLength(1);
  });
});
