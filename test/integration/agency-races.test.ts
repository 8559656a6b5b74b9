import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { and, eq } from 'drizzle-orm';
import { hotelBookings, ledgerEntries, orders, paymentKeys, wallets } from '../../src/db/schema';
import { call, newPartner, type PartnerCredentials } from '../support/clients';
import { day } from '../support/fixtures';
import { type TestStack, useStack } from '../support/stack';
import { payWorkflowId } from '../../workflows/pay.types';

/**
 * Interface B pays each booking and product order it creates in one saga, by a child
 * payment. Interface A's pay, given the same order while that saga runs (the order is the
 * partner's, and listed on A), is the race that left the child nothing to pay: B answered
 * it as a logged 500.
 */

/** Holds one step of B's saga until the test lets it go: the child payment at its debit, or the step that creates the booking's order. */
type Gate = {
  activityType: string;
  holds: (arg: { workflowId?: string; orderId?: number; bookingId?: number }) => boolean;
  reached: (arg: { orderId?: number; bookingId?: number }) => void;
  released: Promise<void>;
};
let gate: Gate | null = null;
const holdStep: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    async execute(input, next) {
      const arg = (input.args[0] ?? {}) as { workflowId?: string; orderId?: number; bookingId?: number };
      const g = gate;
      if (g && ctx.info.activityType === g.activityType && g.holds(arg)) {
        gate = null;
        g.reached(arg);
        await g.released;
      }
      return next(input);
    },
  },
});

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000, activityInterceptors: [holdStep] });

/** Arms the gate for the partner's next child payment: the order it is about to debit, and the release. */
function armGate(creds: PartnerCredentials) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const atDebit = new Promise<number>((reached) => {
    gate = {
      activityType: 'payFastPath',
      holds: (arg) => arg.orderId !== undefined && arg.workflowId === payWorkflowId(creds.partner_id, { orderId: arg.orderId }),
      reached: (arg) => reached(arg.orderId!),
      released,
    };
  });
  return { atDebit, release };
}

const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);
const b = (creds: PartnerCredentials) => ({ authorization: `Bearer ${creds.agency_key}` });
const payments = (orderId: number) =>
  stack.db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.orderId, orderId), eq(ledgerEntries.type, 'payment')));

afterEach(() => {
  gate = null;
});

describe("Interface A's pay of an Interface B order while B's saga pays it", () => {
  it('product order: A is refused (400, not payable), B answers 201 completed, and the order is paid once', async () => {
    const { creds, api } = await newPartner(stack, '0', '500000000');
    const { atDebit, release } = armGate(creds);
    const placing = call(stack.app, 'POST', '/v1/products/orders', b(creds), {
      product_id: 'ESIM-TR-10GB-15D',
      quantity: 1,
      delivery_address: { street: 'Valiasr 1', city: 'Tehran', country: 'IR', postal_code: '1415' },
    });
    const orderId = await atDebit;
    // The order is the partner's, pending, on its A order list, while B's child payment is about to debit it.
    expect((await stack.db.select().from(orders).where(eq(orders.id, orderId)))[0]).toMatchObject({ partnerId: creds.partner_id, status: 'pending' });
    const byA = await api.post('/api/partners/pay/', { product_order_id: orderId, idempotency_key: 'race-product' });
    release();
    const placed = await placing;
    expect({ a: [byA.status, byA.body], b: [placed.status, placed.body.status ?? placed.body] }).toEqual({
      a: [400, { ok: false, error: expect.stringContaining('Interface B order') }],
      b: [201, 'completed'],
    });
    expect(await payments(orderId)).toHaveLength(1);
    // The refused request bound nothing: its key is free for another order.
    expect(await stack.db.select().from(paymentKeys).where(eq(paymentKeys.partnerId, creds.partner_id))).toEqual([]);
  });

  it('hotel booking: A is refused (400, not payable), B answers 201 active, and the order is paid once', async () => {
    const { creds, api } = await newPartner(stack, '0', '500000000');
    const search = await call(stack.app, 'GET', `/v1/hotels/search?city=shiraz&check_in=${day(45)}&check_out=${day(47)}`, b(creds));
    const hotel = search.body.results[0];
    const { atDebit, release } = armGate(creds);
    const booking = call(stack.app, 'POST', '/v1/hotels/bookings', b(creds), {
      hotel_id: hotel.hotel_id,
      room_id: hotel.rooms[0].room_id,
      guest_name: 'Sara Ahmadi',
      guest_email: 'sara@example.com',
      check_in: day(45),
      check_out: day(47),
      guests: 2,
    });
    const orderId = await atDebit;
    const byA = await api.post('/api/partners/pay/', { order_id: orderId, idempotency_key: 'race-hotel' });
    release();
    const booked = await booking;
    expect({ a: [byA.status, byA.body], b: [booked.status, booked.body.status ?? booked.body] }).toEqual({
      a: [400, { ok: false, error: expect.stringContaining('Interface B order') }],
      b: [201, 'active'],
    });
    expect(await payments(orderId)).toHaveLength(1);
  });

  it('a child payment refused as not payable for another reason (the wallet moved to another currency than the order) answers 409 in B’s shape', async () => {
    // The order is priced in the wallet's currency; the wallet changes currency (an operator's
    // fix) while the child payment waits at its debit, which then refuses the order.
    const { creds } = await newPartner(stack, '1000000', '0');
    const { atDebit, release } = armGate(creds);
    try {
      const placing = call(stack.app, 'POST', '/v1/products/orders', b(creds), {
        product_id: 'ESIM-TR-10GB-15D',
        quantity: 1,
        delivery_address: { street: 'Valiasr 1', city: 'Tehran', country: 'IR', postal_code: '1415' },
      });
      await atDebit;
      await stack.db.update(wallets).set({ currency: 'EUR' }).where(eq(wallets.partnerId, creds.partner_id));
      release();
      const placed = await placing;
      expect([placed.status, placed.body]).toEqual([
        409,
        { detail: expect.stringMatching(/^order \d+ is priced in IRT and cannot be paid from a wallet in EUR/) },
      ]);
      const [order] = await stack.db.select().from(orders).where(eq(orders.partnerId, creds.partner_id));
      expect(order!.status).toBe('failed');
      expect(await payments(order!.id)).toEqual([]);
    } finally {
      release();
      await stack.db.update(wallets).set({ currency: 'IRT' }).where(eq(wallets.partnerId, creds.partner_id));
    }
  });

  it('hotel booking whose room hold ended before its order was made (its saga held up past the deadline): 409 in B’s shape, nothing charged', async () => {
    const { creds, api } = await newPartner(stack, '0', '500000000');
    const search = await call(stack.app, 'GET', `/v1/hotels/search?city=shiraz&check_in=${day(45)}&check_out=${day(47)}`, b(creds));
    const hotel = search.body.results[0];
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const atOrder = new Promise<number>((reached) => {
      gate = { activityType: 'orderAgencyBooking', holds: () => true, reached: (arg) => reached(arg.bookingId!), released };
    });
    const booking = call(stack.app, 'POST', '/v1/hotels/bookings', b(creds), {
      hotel_id: hotel.hotel_id,
      room_id: hotel.rooms[0].room_id,
      guest_name: 'Sara Ahmadi',
      guest_email: 'sara@example.com',
      check_in: day(45),
      check_out: day(47),
      guests: 2,
    });
    const bookingId = await atOrder;
    // The hold's deadline passes while the saga is held up (a worker down, a step retried).
    await stack.db
      .update(hotelBookings)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(hotelBookings.id, bookingId));
    release();
    const booked = await booking;
    expect([booked.status, booked.body]).toEqual([409, { detail: expect.stringMatching(/hold .*ended before .* paid; nothing was charged/) }]);
    expect(minor((await api.wallet()).balance)).toBe(500_000_000 * 100);
    expect(await stack.db.select().from(orders).where(eq(orders.partnerId, creds.partner_id))).toEqual([]);
  });
});
