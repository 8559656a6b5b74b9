import { eq } from 'drizzle-orm';
import { flightBookings, flightChanges, ledgerEntries, orders } from '../../src/db/schema';
import { recordHistory } from '../support/histories';
import { reconcile } from '../../src/domain/money/reconcile';
import type { PartnerClient } from '../../src/client';
import { newPartner as partnerWithWallet } from '../support/clients';
import { eventTypesOf } from '../support/events';
import { type TestStack, useStack } from '../support/stack';
import { contact, day, traveller } from '../support/fixtures';

/** Seats and bags: a fare's seat map and bags priced in the wallet, chosen at booking; bags added later as a saga. */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

const newPartner = () => partnerWithWallet(stack, '0', String(500_000_000));
const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);
const adult = traveller;

async function fare(client: PartnerClient) {
  const found = await client.POST('/flights/search_flights/', {
    body: { origin: 'THR', destination: 'MHD', departure_date_time: `${day(30)}T00:00:00Z`, adult_count: 1, cabin_type: 'economy', air_trip_type: 'one_way' },
  });
  return found.data!.data.results.find((o) => o.fare_family === 'Standard')!;
}

const bookingOf = async (orderId: number) => (await stack.db.select().from(flightBookings).where(eq(flightBookings.orderId, orderId)))[0]!;
const findingsOf = async (orderId: number) => (await reconcile(stack.db, new Date(), 60 * 60_000)).findings.filter((f) => f.order_id === orderId);

describe('seats and bags at booking', () => {
  it('shows the seat map and the bags in the wallet currency, and books a paid seat and a bag with the flight', async () => {
    const { client } = await newPartner();
    const offer = await fare(client);
    const map = await client.GET('/flights/seat_map/', { params: { query: { fare_source_code: offer.fare_source_code } } });
    expect(map.response.status).toBe(200);
    const seats = map.data!.data.seat_maps[0]!.cabins[0]!.rows.flatMap((r) => r.seats);
    const paid = seats.find((s) => s.prices.some((p) => minor(p.price) > 0))!;
    expect(paid).toBeDefined();
    expect(seats.some((s) => s.prices.length === 0)).toBe(true);
    const bags = await client.GET('/flights/air_services/', { params: { query: { fare_source_code: offer.fare_source_code } } });
    expect(bags.response.status).toBe(200);
    const bag = bags.data!.data.services[0]!;
    expect(bag).toMatchObject({ currency: map.data!.data.currency, bag: { kind: 'checked' } });

    const seatService = paid.prices.find((p) => p.traveler_index === 0)!.service_id;
    const booked = await client.POST('/flights/air_booking/', {
      body: {
        fare_source_code: offer.fare_source_code,
        traveler_info: { contact, air_travelers: [adult] },
        services: [
          { service_id: seatService, quantity: 1 },
          { service_id: bag.service_id, quantity: 1 },
        ],
      },
    });
    expect(booked.response.status).toBe(201);
    // The order costs the fare, the seat and the bag, priced as a whole.
    expect(minor(booked.data!.data.total_price)).toBeGreaterThan(minor(offer.total_price));
    const data = await client.POST('/flights/air_booking_data/', { body: { order_id: booked.data!.data.id } });
    expect(data.data?.data.booking?.services).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'seat', designator: paid.designator, traveler_index: 0 }),
        expect.objectContaining({ type: 'baggage', quantity: 1 }),
      ]),
    );
  });

  it('refuses a seat taken meanwhile, booking nothing', async () => {
    const { client } = await newPartner();
    const offer = await fare(client);
    const map = await client.GET('/flights/seat_map/', { params: { query: { fare_source_code: offer.fare_source_code } } });
    const seat = map.data!.data.seat_maps[0]!.cabins[0]!.rows.flatMap((r) => r.seats).find((s) => s.prices.length > 0)!;
    const res = await client.POST('/flights/air_booking/', {
      params: { header: { 'x-sandbox-scenario': 'seat_taken' } },
      body: {
        fare_source_code: offer.fare_source_code,
        traveler_info: { contact, air_travelers: [adult] },
        services: [{ service_id: seat.prices[0]!.service_id, quantity: 1 }],
      },
    });
    expect(res.response.status).toBe(400);
    expect(res.error?.error).toMatch(/^fare_source_code:/);
  });
});

describe('bags added after ticketing', () => {
  async function ticketed(client: PartnerClient): Promise<number> {
    const booked = await client.POST('/flights/air_booking/', {
      body: { fare_source_code: (await fare(client)).fare_source_code, traveler_info: { contact, air_travelers: [adult] } },
    });
    expect((await client.POST('/partners/pay/', { body: { order_id: booked.data!.data.id } })).data?.data.order_status).toBe('completed');
    return booked.data!.data.id;
  }

  it('adds a bag: debited once at the price shown, the order lists it, order.services_added, reconcile clean', async () => {
    const { client, api } = await newPartner();
    const orderId = await ticketed(client);
    const forSale = await client.POST('/flights/air_order_available_services/', { body: { order_id: orderId } });
    expect(forSale.response.status).toBe(200);
    const bag = forSale.data!.data.services[0]!;
    const before = (await stack.db.select().from(orders).where(eq(orders.id, orderId)))[0]!;
    const walletBefore = minor((await api.wallet()).balance);
    const body = { order_id: orderId, services: [{ service_id: bag.service_id, quantity: 1 }], idempotency_key: `bag-${orderId}` };
    const res = await client.POST('/flights/air_order_services/', { body });
    expect(res.response.status).toBe(200);
    expect(res.data?.data).toMatchObject({ status: 'confirmed', total: bag.price });
    expect(minor((await api.wallet()).balance)).toBe(walletBefore - minor(bag.price));
    expect(minor(res.data!.data.order_total!)).toBe(before.totalPrice + minor(bag.price));
    expect(((await bookingOf(orderId)).services as Array<{ type: string }>).filter((s) => s.type === 'baggage')).toHaveLength(1);
    expect((await client.POST('/flights/air_order_services/', { body })).data?.data.change_id).toBe(res.data!.data.change_id);
    const moves = (await stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, orderId))).filter((l) => l.step?.startsWith('flight-change-'));
    expect(moves).toHaveLength(1);
    expect(await eventTypesOf(api, orderId)).toEqual(['order.processing', 'order.completed', 'order.services_added']);
    expect(await findingsOf(orderId)).toEqual([]);
    await recordHistory(stack, (await stack.db.select().from(flightChanges).where(eq(flightChanges.orderId, orderId)))[0]!.workflowId, 'flight-bags');
  });

  it('credits the debit back when the airline refuses the bag', async () => {
    const { client, api } = await newPartner();
    const orderId = await ticketed(client);
    const bag = (await client.POST('/flights/air_order_available_services/', { body: { order_id: orderId } })).data!.data.services[0]!;
    const walletBefore = (await api.wallet()).balance;
    const res = await client.POST('/flights/air_order_services/', {
      params: { header: { 'x-sandbox-scenario': 'bag_refused' } },
      body: { order_id: orderId, services: [{ service_id: bag.service_id, quantity: 1 }], idempotency_key: `refused-${orderId}` },
    });
    expect(res.response.status).toBe(502);
    expect((await api.wallet()).balance).toBe(walletBefore);
    expect(((await bookingOf(orderId)).services as unknown[]) ?? []).toHaveLength(0);
    expect(await findingsOf(orderId)).toEqual([]);
  });

  it('adds a bag whose answers were lost once: one bag on the order, one debit', async () => {
    const { client, api } = await newPartner();
    const orderId = await ticketed(client);
    const bag = (await client.POST('/flights/air_order_available_services/', { body: { order_id: orderId } })).data!.data.services[0]!;
    const walletBefore = minor((await api.wallet()).balance);
    const res = await client.POST('/flights/air_order_services/', {
      params: { header: { 'x-sandbox-scenario': 'supplier_lost_response' } },
      body: { order_id: orderId, services: [{ service_id: bag.service_id, quantity: 1 }], idempotency_key: `lost-${orderId}` },
    });
    expect(res.response.status).toBe(200);
    expect(minor((await api.wallet()).balance)).toBe(walletBefore - minor(bag.price));
    expect(
      ((await bookingOf(orderId)).services as Array<{ type: string; quantity: number }>)
        .filter((s) => s.type === 'baggage')
        .reduce((n, s) => n + s.quantity, 0),
    ).toBe(1);
    expect(await findingsOf(orderId)).toEqual([]);
  });
});
