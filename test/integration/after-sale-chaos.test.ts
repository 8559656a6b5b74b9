import { eq } from 'drizzle-orm';
import type { PartnerClient } from '../../src/client';
import { flightBookings, flightChanges, scheduleChanges } from '../../src/db/schema';
import { adminClient, newPartner } from '../support/clients';
import type { DuffelStandIn } from '../support/duffel';
import { britishTraveller, killWorkerMeanwhile, useDuffelEngine } from '../support/duffel-chaos';
import { contact, day } from '../support/fixtures';
import { ledgerDiscrepancies, type TestStack } from '../support/stack';

/**
 * Chaos after the sale, on Duffel: the answers to change confirmations, to bag additions and
 * to acceptances of the airline's schedule changes are lost while the worker is killed and
 * comes back. Duffel is charged once for each (accepting costs nothing), the wallet is debited
 * once, and the books reconcile.
 */

let standIn: DuffelStandIn;
let stack: TestStack;
useDuffelEngine((s) => ({ standIn, stack } = s));

const ORDERS = 3;
const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);
const traveller = britishTraveller;

/** A ticketed Flex flight from London, paid: its order id. */
async function ticketed(client: PartnerClient, i: number): Promise<number> {
  const found = await client.POST('/flights/search_flights/', {
    body: {
      origin: 'LHR',
      destination: 'IST',
      departure_date_time: `${day(30 + i)}T00:00:00Z`,
      adult_count: 1,
      cabin_type: 'economy',
      air_trip_type: 'one_way',
    },
  });
  const fare = found.data!.data.results.find((o) => o.fare_family === 'Flex') ?? found.data!.data.results.at(-1)!;
  const booked = await client.POST('/flights/air_booking/', {
    body: { fare_source_code: fare.fare_source_code, traveler_info: { contact, air_travelers: [traveller] } },
  });
  expect(booked.response.status).toBe(201);
  const paid = await client.POST('/partners/pay/', { body: { order_id: booked.data!.data.id, idempotency_key: `chaos-pay-${booked.data!.data.id}` } });
  expect(paid.data?.data.order_status).toBe('completed');
  return booked.data!.data.id;
}

/** Until every change of these orders has left `confirming`. */
async function settled(orderIds: number[], timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await stack.db.select().from(flightChanges);
    const mine = rows.filter((r) => orderIds.includes(r.orderId));
    if (mine.length > 0 && mine.every((r) => r.status !== 'confirming')) return mine;
    if (Date.now() > deadline) throw new Error(`changes still under way: ${JSON.stringify(mine.map((r) => [r.id, r.status]))}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const movementsFor = (reference: string) => standIn.control.balanceMovements().filter((m) => m.reference === reference);

it('changes every flight once, adds every bag once and accepts every schedule change once while answers are lost and the worker is killed', async () => {
  const partners = await Promise.all(Array.from({ length: ORDERS }, () => newPartner(stack, '0', '900000000')));
  const orders = await Promise.all(partners.map((p, i) => ticketed(p.client, i)));

  // Changes: every confirmation's answer lost, the worker killed while they are retried.
  const offers = await Promise.all(
    orders.map(async (orderId, i) => {
      const res = await partners[i]!.client.POST('/flights/air_change_request/', {
        body: { order_id: orderId, remove: [0], add: [{ origin: 'LHR', destination: 'IST', departure_date: day(45 + i), cabin_type: 'economy' }] },
      });
      expect(res.response.status).toBe(200);
      return res.data!.data.offers[0]!;
    }),
  );
  const walletsBefore = await Promise.all(partners.map(async (p) => minor((await p.api.wallet()).balance)));
  standIn.control.loseNextAnswer('POST /air/order_changes/:id/actions/confirm', { times: ORDERS });
  const confirms = orders.map((orderId, i) =>
    partners[i]!.client.POST('/flights/air_change_confirm/', {
      body: { order_id: orderId, change_offer_id: offers[i]!.change_offer_id, idempotency_key: `chaos-change-${orderId}` },
    }),
  );
  await killWorkerMeanwhile(stack);
  for (const answer of await Promise.all(confirms)) expect([200, 202]).toContain(answer.response.status);
  const changes = await settled(orders);
  expect(standIn.control.requests('POST /air/order_changes/:id/actions/confirm').filter((r) => r.lostAnswer)).toHaveLength(ORDERS);
  for (const [i, change] of changes.entries()) {
    expect(change.status).toBe('confirmed');
    const duffelChange = change.supplierChangeId!.split('.')[0]!;
    // Duffel took the change's money once (or refunded it once), and the wallet moved once by the total shown.
    expect(movementsFor(duffelChange)).toHaveLength(Number(offers[i]!.total) === 0 ? 0 : 1);
    const partnerIndex = orders.indexOf(change.orderId);
    expect(minor((await partners[partnerIndex]!.api.wallet()).balance)).toBe(walletsBefore[partnerIndex]! - minor(offers[partnerIndex]!.total));
  }

  // Bags: every addition's answer lost, the worker killed meanwhile.
  const bags = await Promise.all(
    orders.map(
      async (orderId, i) => (await partners[i]!.client.POST('/flights/air_order_available_services/', { body: { order_id: orderId } })).data!.data.services[0]!,
    ),
  );
  const beforeBags = await Promise.all(partners.map(async (p) => minor((await p.api.wallet()).balance)));
  const paidBefore = await Promise.all(
    orders.map(async (orderId) => {
      const [b] = await stack.db.select({ ref: flightBookings.supplierBookingRef }).from(flightBookings).where(eq(flightBookings.orderId, orderId));
      return { ref: b!.ref!, count: movementsFor(b!.ref!).length };
    }),
  );
  standIn.control.loseNextAnswer('POST /air/orders/:id/services', { times: ORDERS });
  const adds = orders.map((orderId, i) =>
    partners[i]!.client.POST('/flights/air_order_services/', {
      body: { order_id: orderId, services: [{ service_id: bags[i]!.service_id, quantity: 1 }], idempotency_key: `chaos-bag-${orderId}` },
    }),
  );
  await killWorkerMeanwhile(stack);
  for (const answer of await Promise.all(adds)) expect([200, 202]).toContain(answer.response.status);
  const added = (await settled(orders)).filter((c) => c.kind === 'services');
  expect(added).toHaveLength(ORDERS);
  for (const [i, orderId] of orders.entries()) {
    expect(added.find((c) => c.orderId === orderId)?.status).toBe('confirmed');
    // One more payment to Duffel for the order: the bag, once.
    expect(movementsFor(paidBefore[i]!.ref)).toHaveLength(paidBefore[i]!.count + 1);
    expect(minor((await partners[i]!.api.wallet()).balance)).toBe(beforeBags[i]! - minor(bags[i]!.price));
  }

  // Schedule changes: the airline moves each flight, the poll finds it, and every acceptance's
  // answer is lost while the worker is killed.
  const refs = await Promise.all(
    orders.map(
      async (orderId) =>
        (await stack.db.select({ ref: flightBookings.supplierBookingRef }).from(flightBookings).where(eq(flightBookings.orderId, orderId)))[0]!.ref!,
    ),
  );
  for (const ref of refs) await standIn.control.plantAirlineChange(ref, { shiftMinutes: 75, deliver: 'none' });
  expect((await adminClient(stack).post('/admin/schedule-changes/poll')).body).toMatchObject({ started: ORDERS });
  const beforeAccepting = await Promise.all(partners.map(async (p) => (await p.api.wallet()).balance));
  standIn.control.loseNextAnswer('POST /air/airline_initiated_changes/:id/actions/accept', { times: ORDERS });
  const accepts = orders.map((orderId, i) => partners[i]!.client.POST('/flights/air_schedule_change/', { body: { order_id: orderId, decision: 'accept' } }));
  await killWorkerMeanwhile(stack);
  for (const answer of await Promise.all(accepts)) expect([200, 202]).toContain(answer.response.status);
  const deadline = Date.now() + 90_000;
  for (;;) {
    const rows = (await stack.db.select().from(scheduleChanges)).filter((r) => orders.includes(r.orderId));
    if (rows.length === ORDERS && rows.every((r) => r.status === 'accepted')) break;
    if (Date.now() > deadline) throw new Error(`schedule changes not accepted: ${JSON.stringify(rows.map((r) => [r.orderId, r.status]))}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  // Each accepted at Duffel by one call (its answer lost, found by the look-up), and nothing charged for it.
  const acceptCalls = standIn.control.requests('POST /air/airline_initiated_changes/:id/actions/accept');
  expect(acceptCalls).toHaveLength(ORDERS);
  expect(acceptCalls.filter((r) => r.lostAnswer)).toHaveLength(ORDERS);
  expect(await Promise.all(partners.map(async (p) => (await p.api.wallet()).balance))).toEqual(beforeAccepting);

  expect(await ledgerDiscrepancies(stack.db)).toEqual([]);
  const books = await adminClient(stack).get('/admin/reconcile');
  expect(books.body).toMatchObject({ ok: true, findings: [] });
}, 240_000);
