import { eq } from 'drizzle-orm';
import { hotelBookings, ledgerEntries, orders } from '../../src/db/schema';
import type { PartnerClient } from '../../src/client';
import { beginCancellation, completeCancellation } from '../../src/domain/hotels/cancellation';
import { newPartner } from '../support/clients';
import { contact, day, roomGuests } from '../support/fixtures';
import { type TestStack, useStack } from '../support/stack';

/**
 * A payment and a cancellation of the same order, their steps interleaved by hand: each
 * status change moves only from the status it expects, so whichever comes second finds
 * the order moved and changes nothing (no debited, confirmed order ends up cancelled with
 * nothing refunded).
 */
let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

const TEHRAN = 1;
const run = (name: string) => ({ workflowId: `race-${name}-${Date.now()}`, runId: 'r' });
const orderRow = async (id: number) => (await stack.db.select().from(orders).where(eq(orders.id, id)))[0]!;
const ledgerOf = (id: number) => stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, id));

async function unpaidHotelOrder(client: PartnerClient): Promise<number> {
  const found = await client.POST('/hotel/search_hotels/', {
    body: { check_in: day(40), check_out: day(42), nationality_id: 'IR', rooms: [{ adult_count: 2 }], city_id: TEHRAN },
  });
  const rate = found.data!.data.results.flatMap((h) => h.rates)[0]!;
  const booked = await client.POST('/hotel/book/', { body: { rate_key: rate.rate_key, guests: roomGuests, contact } });
  expect(booked.response.status).toBe(200);
  const ordered = await client.POST('/hotel/order/', { body: { booking_id: booked.data!.data.booking_id } });
  expect(ordered.response.status).toBe(201);
  return ordered.data!.data.id;
}

describe('a payment racing the cancellation of an unpaid hotel order', () => {
  it('the cancellation claims the order first: the payment is refused and no money moves', async () => {
    const { api, client } = await newPartner(stack, undefined, '100000000');
    const orderId = await unpaidHotelOrder(client);
    const before = await api.wallet();

    // The cancellation workflow's first step runs, then a payment arrives before its last.
    const start = await beginCancellation(stack.db, orderId);
    expect(start.kind).toBe('unpaid');
    const paid = await client.POST('/partners/pay/', { body: { order_id: orderId } });
    expect(paid.response.status).toBe(400);
    expect(paid.error?.error).toMatch(/not payable: it is already cancelled/);
    const done = await completeCancellation(stack.db, { ...run('unpaid'), orderId, kind: start.kind, refundMinor: 0, penaltyMinor: 0 });

    expect(done).toMatchObject({ refundMinor: 0, ledgerId: null });
    expect((await orderRow(orderId)).status).toBe('cancelled');
    expect((await stack.db.select().from(hotelBookings).where(eq(hotelBookings.orderId, orderId)))[0]!.status).toBe('cancelled');
    expect(await ledgerOf(orderId)).toEqual([]);
    expect(await api.wallet()).toEqual(before);
  });

  it('a refund never settles an order from a status it did not expect: a paid order stays completed with its money', async () => {
    const { api, client } = await newPartner(stack, undefined, '100000000');
    const orderId = await unpaidHotelOrder(client);
    // The cancellation looked when the order was unpaid ...
    const unpaid = { ...run('late'), orderId, kind: 'unpaid' as const, refundMinor: 0, penaltyMinor: 0 };
    // ... and the payment completed before the cancellation's last step.
    expect((await client.POST('/partners/pay/', { body: { order_id: orderId } })).response.status).toBe(200);
    expect((await orderRow(orderId)).status).toBe('completed');
    const paid = await api.wallet();

    await expect(completeCancellation(stack.db, unpaid)).rejects.toThrow(/is completed; its refund settles it only from pending/);
    expect((await orderRow(orderId)).status).toBe('completed');
    expect((await ledgerOf(orderId)).map((e) => e.type)).toEqual(['payment']);
    expect(await api.wallet()).toEqual(paid);
  });
});
