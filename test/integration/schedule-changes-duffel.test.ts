import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { eq } from 'drizzle-orm';
import { flightBookings, supplierEvents } from '../../src/db/schema';
import type { Leg } from '../../src/suppliers/flights';
import { scheduleChangeWorkflowId } from '../../workflows/schedule-change.types';
import { adminClient, newPartner } from '../support/clients';
import { startDuffelStandIn, type DuffelStandIn } from '../support/duffel';
import { eventTypesOf } from '../support/events';
import { contact, day } from '../support/fixtures';
import { GBP_RATE, setRate } from '../support/rates';
import { ledgerDiscrepancies, startStack, type TestStack } from '../support/stack';
import { waitFor } from '../support/wait';

/**
 * An airline's schedule change to an order Duffel holds, end to end against the Duffel
 * stand-in: its signed webhook, delivered twice, and the workers' poll start one workflow
 * and tell the partner once; the partner accepts it at Duffel.
 */

const SECRET = 'whsec_duffel_schedule_changes_0123';
let standIn: DuffelStandIn;
let stack: TestStack;
let engine: ServerType;

beforeAll(async () => {
  // The engine's public port, where the stand-in sends its webhooks (the stack's app is made after the stand-in).
  const port = await new Promise<number>((listening) => {
    engine = serve({ fetch: (req) => stack.app.fetch(req), port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => listening(info.port));
  });
  standIn = await startDuffelStandIn({ webhookUrl: `http://127.0.0.1:${port}/webhooks/duffel`, webhookSecret: SECRET });
  stack = await startStack({
    payWaitMs: 10_000,
    env: {
      FLIGHT_SUPPLIER: 'duffel',
      DUFFEL_ACCESS_TOKEN: 'duffel_test_schedule_changes',
      DUFFEL_API_URL: standIn.url,
      DUFFEL_WEBHOOK_SECRET: SECRET,
    },
  });
  expect((await setRate(stack, 'GBP', GBP_RATE)).status).toBe(201);
});
afterEach(async () => {
  expect(await ledgerDiscrepancies(stack.db)).toEqual([]);
});
afterAll(async () => {
  await stack?.close();
  await standIn?.stop();
  await new Promise((closed) => engine?.close(closed));
});

it('announced twice by a signed webhook and found by the poll: one workflow, one order.schedule_changed; accepted at Duffel', async () => {
  const { api } = await newPartner(stack, '0', '900000000');
  const search = await api.post('/api/flights/search_flights/', {
    origin: 'THR',
    destination: 'MHD',
    departure_date_time: `${day(30)}T00:00:00Z`,
    adult_count: 1,
    cabin_type: 'economy',
    air_trip_type: 'one_way',
  });
  expect(search.status).toBe(200);
  const fare = search.body.data.results[0];
  const booked = await api.post('/api/flights/air_booking/', {
    fare_source_code: fare.fare_source_code,
    traveler_info: {
      contact,
      air_travelers: [
        {
          first_name: 'Reza',
          last_name: 'Karimi',
          birth_date: '1985-04-12',
          gender: 'male',
          passenger_type: 'ADT',
          nationality: 'IR',
          national_id: '0012345679',
        },
      ],
    },
  });
  expect(booked.status).toBe(201);
  const orderId = booked.body.data.id as number;
  expect((await api.post('/api/partners/pay/', { order_id: orderId, idempotency_key: `fly-${orderId}` })).status).toBe(200);
  const [booking] = await stack.db.select().from(flightBookings).where(eq(flightBookings.orderId, orderId));
  const duffelOrderId = booking!.supplierBookingRef!;

  const { change, event } = await standIn.control.plantAirlineChange(duffelOrderId, { shiftMinutes: 90, deliver: 'twice' });
  expect(standIn.control.webhookDeliveries().map((d) => [d.event_id, d.status])).toEqual([
    [event.id, 200],
    [event.id, 200],
  ]);
  const rows = await stack.db.select().from(supplierEvents).where(eq(supplierEvents.eventId, event.id));
  expect(rows).toEqual([expect.objectContaining({ supplier: 'duffel', type: 'order.airline_initiated_change_detected', handledAt: expect.any(Date) })]);
  const admin = adminClient(stack);
  expect((await admin.post('/admin/schedule-changes/poll')).status).toBe(200);
  expect((await admin.post('/admin/schedule-changes/poll')).body).toMatchObject({ started: 0 });

  const workflowId = scheduleChangeWorkflowId(orderId, `${change.id}.${duffelOrderId}`);
  const ids: string[] = [];
  await waitFor(async () => {
    ids.length = 0;
    for await (const wf of stack.client.workflow.list({ query: `WorkflowType = "scheduleChange" AND OrderId = ${orderId}` })) ids.push(wf.workflowId);
    return ids.length > 0;
  }, 'the workflow to be listed');
  expect(ids).toEqual([workflowId]);
  expect(await eventTypesOf(api, orderId)).toEqual(['order.processing', 'order.completed', 'order.schedule_changed']);

  const decided = await api.post('/api/flights/air_schedule_change/', { order_id: orderId, decision: 'accept' });
  expect(decided).toMatchObject({ status: 200, body: { data: { status: 'accepted', change_id: `${change.id}.${duffelOrderId}` } } });
  expect(standIn.control.requests('POST /air/airline_initiated_changes/:id/actions/accept')).toHaveLength(1);
  const order = (await api.post('/api/flights/air_booking_data/', { order_id: orderId })).body.data;
  expect(order.order.schedule_change).toMatchObject({ status: 'accepted', resolved_by: 'partner' });
  expect(Date.parse(order.booking.legs[0].segments[0].departure) - Date.parse((booking!.legs as Leg[])[0]!.segments[0]!.departure)).toBe(90 * 60_000);
  expect(await eventTypesOf(api, orderId)).toEqual(['order.processing', 'order.completed', 'order.schedule_changed', 'order.schedule_change_resolved']);
});
