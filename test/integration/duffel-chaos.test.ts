import { Duffel } from '@duffel/api';
import { eq } from 'drizzle-orm';
import type { PartnerClient } from '../../src/client';
import { flightBookings } from '../../src/db/schema';
import { adminClient, newPartner } from '../support/clients';
import type { DuffelStandIn } from '../support/duffel';
import { britishTraveller, killWorkerMeanwhile, useDuffelEngine } from '../support/duffel-chaos';
import { contact, day } from '../support/fixtures';
import { GBP_RATE } from '../support/rates';
import { untilOrderStatus } from '../support/order-status';
import { ledgerDiscrepancies, type TestStack } from '../support/stack';

/**
 * Chaos on Duffel: the answers to Duffel payments and to order cancellation confirmations
 * are lost while the worker is killed and comes back. Every hold is paid once, every refund
 * cancels once and is credited once, and the books balance.
 */

let standIn: DuffelStandIn;
let stack: TestStack;
useDuffelEngine((s) => ({ standIn, stack } = s));

const ORDERS = 4;
const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);
const traveller = britishTraveller;

async function heldFlight(client: PartnerClient, i: number) {
  const found = await client.POST('/flights/search_flights/', {
    body: {
      origin: 'LHR',
      destination: i % 2 ? 'IST' : 'DXB',
      departure_date_time: `${day(30 + i)}T00:00:00Z`,
      adult_count: 1,
      cabin_type: 'economy',
      air_trip_type: 'one_way',
    },
  });
  const fare = found.data!.data.results[0]!;
  const booked = await client.POST('/flights/air_booking/', {
    body: { fare_source_code: fare.fare_source_code, traveler_info: { contact, air_travelers: [traveller] } },
  });
  expect(booked.response.status).toBe(201);
  return booked.data!.data;
}

const supplierOrderOf = async (orderId: number) =>
  (await stack.db.select({ ref: flightBookings.supplierBookingRef }).from(flightBookings).where(eq(flightBookings.orderId, orderId)))[0]!.ref!;

it('pays every hold once and refunds every ticket once while answers are lost and the worker is killed', async () => {
  const partners = await Promise.all(Array.from({ length: ORDERS }, () => newPartner(stack, '0', '900000000')));
  const held = await Promise.all(partners.map((p, i) => heldFlight(p.client, i)));
  const refs = await Promise.all(held.map((h) => supplierOrderOf(h.id)));

  // Payments: every first answer lost, the worker killed while they are retried.
  standIn.control.loseNextAnswer('POST /air/payments', { times: ORDERS });
  const pays = held.map((h, i) => partners[i]!.client.POST('/partners/pay/', { body: { order_id: h.id, idempotency_key: `chaos-${h.id}` } }));
  await killWorkerMeanwhile(stack);
  for (const answer of await Promise.all(pays)) expect([200, 202]).toContain(answer.response.status);
  for (const h of held) await untilOrderStatus(stack.db, h.id, 'completed', 60_000);
  for (const ref of refs) expect(standIn.control.payments(ref)).toHaveLength(1);
  expect(standIn.control.requests('POST /air/payments').filter((r) => r.lostAnswer)).toHaveLength(ORDERS);

  // Refunds: every confirmation's answer lost, the worker killed meanwhile.
  const before = await Promise.all(partners.map(async (p) => minor((await p.api.wallet()).balance)));
  standIn.control.loseNextAnswer('POST /air/order_cancellations/:id/actions/confirm', { times: ORDERS });
  const refunds = held.map((h, i) => partners[i]!.client.POST('/flights/air_refund/', { body: { order_id: h.id } }));
  await killWorkerMeanwhile(stack);
  for (const answer of await Promise.all(refunds)) expect([200, 202]).toContain(answer.response.status);
  for (const h of held) await untilOrderStatus(stack.db, h.id, 'refunded', 60_000);

  const duffel = new Duffel({ token: 'duffel_test_chaos', basePath: standIn.url });
  for (const [i, ref] of refs.entries()) {
    const confirmed = (await duffel.orderCancellations.list({ order_id: ref })).data.filter((c) => c.confirmed_at);
    expect(confirmed).toHaveLength(1);
    // Credited once: the wallet grew by the airline's refund at the rate, and by nothing more.
    expect(minor((await partners[i]!.api.wallet()).balance) - before[i]!).toBe(minor(confirmed[0]!.refund_amount!) * GBP_RATE);
  }
  expect(await ledgerDiscrepancies(stack.db)).toEqual([]);
  const books = await adminClient(stack).get('/admin/reconcile');
  expect(books.body).toMatchObject({ ok: true, findings: [] });
});
