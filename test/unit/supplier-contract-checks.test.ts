import { checkedFlightAfterSale, checkedFlightSupplier, checkedProductSupplier, SupplierAnswerError } from '../../src/suppliers/contract-checks';
import { SupplierUnavailableError } from '../../src/suppliers/errors';
import type { FlightAfterSale, OrderChange } from '../../src/suppliers/flight-after-sale';
import type { FlightOrder, FlightSupplier } from '../../src/suppliers/flights';
import type { ProductSupplier } from '../../src/suppliers/products';

const order: FlightOrder = {
  order_id: 'ord_1',
  booking_reference: 'ABC123',
  status: 'issued',
  payment_required_by: '2026-12-01T10:00:00Z',
  total: { amount_minor: 12_345, currency: 'GBP' },
  fare_family: 'Basic',
  refundable: true,
  refund_penalty: { amount_minor: 2_000, currency: 'GBP' },
  cabin: 'economy',
  legs: [],
  tickets: [{ traveler_index: 0, ticket_number: '125-0000000001' }],
};

const airlineAnswering = (answer: unknown) => checkedFlightSupplier({ name: 'duffel', order: async () => answer } as unknown as FlightSupplier);

describe('supplier answers checked at the port', () => {
  it('passes an answer that keeps the contract, unchanged', async () => {
    expect(await airlineAnswering(order).order('ord_1')).toEqual(order);
  });

  it.each<[string, unknown, RegExp]>([
    ['a fractional amount', { ...order, total: { amount_minor: 123.45, currency: 'GBP' } }, /total\.amount_minor: /],
    ['a negative amount', { ...order, total: { amount_minor: -1, currency: 'GBP' } }, /total\.amount_minor: /],
    ['an amount as text', { ...order, total: { amount_minor: '12345', currency: 'GBP' } }, /total\.amount_minor: /],
    ['an unknown currency', { ...order, total: { amount_minor: 1, currency: 'GBX' } }, /total\.currency: not a currency the engine knows/],
    ['an unknown status', { ...order, status: 'ticketed' }, /status: /],
    ['no order id', { ...order, order_id: '' }, /order_id: /],
    ['not an object', 'OK', /\(the answer\): /],
  ])('refuses %s, as a transient supplier failure naming the call', async (_, answer, issue) => {
    const err = await airlineAnswering(answer)
      .order('ord_1')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SupplierAnswerError);
    expect(err).toBeInstanceOf(SupplierUnavailableError);
    expect((err as Error).message).toMatch(/^the supplier's answer to duffel flights\.order does not keep its contract: /);
    expect((err as Error).message).toMatch(issue);
  });

  it('refuses a priced offer whose amounts are in two currencies', async () => {
    const offer = {
      available: true,
      offer_id: 'off_1',
      total: { amount_minor: 12_345, currency: 'GBP' },
      searched_total: { amount_minor: 12_000, currency: 'EUR' },
      expires_at: null,
      seats_left: null,
      legs: [],
      passengers: { adults: 1, children: 0, infants: 0 },
      identity_documents_required: false,
    };
    const airline = checkedFlightSupplier({ name: 'duffel', price: async () => offer } as unknown as FlightSupplier);
    await expect(airline.price('off_1')).rejects.toThrow(/flights\.price .*amounts in more than one currency \(GBP, EUR\)/);
    const same = { ...offer, searched_total: { amount_minor: 12_000, currency: 'GBP' } };
    expect(await checkedFlightSupplier({ name: 'duffel', price: async () => same } as unknown as FlightSupplier).price('off_1')).toEqual(same);
  });

  it('a look-up that finds nothing (null) is an answer; anything else is checked', async () => {
    const lookingUp = (answer: unknown) => checkedProductSupplier({ lookup: async () => answer } as unknown as ProductSupplier);
    expect(await lookingUp(null).lookup('ref')).toBeNull();
    await expect(lookingUp({ status: 'shipped' }).lookup('ref')).rejects.toThrow(/products\.lookup .*fulfilment_id/);
  });

  describe('after the sale', () => {
    const change: OrderChange = {
      change_id: 'oce_1',
      change_offer_id: 'oco_1',
      order_id: 'ord_1',
      change_total: { amount_minor: -5_000, currency: 'GBP' },
      penalty: { amount_minor: 1_000, currency: 'GBP' },
      new_total: { amount_minor: 7_345, currency: 'GBP' },
      expires_at: '2026-12-01T10:00:00Z',
      confirmed_at: null,
    };
    const changing = (answer: unknown) =>
      checkedFlightAfterSale({ name: 'duffel', change: async () => answer } as unknown as FlightAfterSale & { name: string });

    it('passes a change whose total is negative (a refund)', async () => {
      expect(await changing(change).change('oce_1')).toEqual(change);
    });

    it.each<[string, unknown, RegExp]>([
      ['a negative penalty', { ...change, penalty: { amount_minor: -1, currency: 'GBP' } }, /penalty\.amount_minor: /],
      ['a fractional total', { ...change, change_total: { amount_minor: -1.5, currency: 'GBP' } }, /change_total\.amount_minor: /],
      ['amounts in two currencies', { ...change, new_total: { amount_minor: 7_345, currency: 'EUR' } }, /amounts in more than one currency \(GBP, EUR\)/],
      ['no expiry', { ...change, expires_at: 'soon' }, /expires_at: not a date-time/],
    ])('refuses %s', async (_, answer, issue) => {
      await expect(changing(answer).change('oce_1')).rejects.toThrow(issue);
    });

    it('refuses an order whose seats and bags are priced in another currency than its total', async () => {
      const bag = { service_id: 'ase_1', type: 'baggage', traveler_index: 0, segments: [[0, 0]], quantity: 1, total: { amount_minor: 100, currency: 'EUR' } };
      const adding = checkedFlightAfterSale({ name: 'duffel', addServices: async () => ({ ...order, services: [bag] }) } as unknown as FlightAfterSale & {
        name: string;
      });
      await expect(adding.addServices('ord_1', { services: [], amount: order.total })).rejects.toThrow(/flights\.addServices .*more than one currency/);
    });
  });
});
