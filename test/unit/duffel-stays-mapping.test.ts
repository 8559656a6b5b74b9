import type { DuffelCalls } from '../../src/suppliers/adapters/duffel/client';
import { duffelHotelSupplier, e164, occupancyOf, timelineOf } from '../../src/suppliers/adapters/duffel/hotels';
import type { PlaceIds } from '../../src/suppliers/place-ids';

/** How Duffel Stays' shapes become the stays port's (src/suppliers/adapters/duffel/hotels.ts). */

const gbp = (amount_minor: number) => ({ amount_minor, currency: 'GBP' });
const NOW = '2026-12-01T00:00:00.000Z';

describe('a rate’s cancellation timeline as penalties', () => {
  it('charges nothing while a full refund holds, then the total less each refund, then everything', () => {
    const timeline = [
      // Out of order on purpose: Duffel's steps are read by their `before`.
      { before: '2026-12-20T00:00:00Z', refund_amount: '100.00', currency: 'GBP' },
      { before: '2026-12-10T00:00:00Z', refund_amount: '200.00', currency: 'GBP' },
    ];
    expect(timelineOf({ cancellation_timeline: timeline }, gbp(20_000), NOW)).toEqual([
      { from: '2026-12-10T00:00:00Z', penalty: gbp(10_000) },
      { from: '2026-12-20T00:00:00Z', penalty: gbp(20_000) },
    ]);
  });

  it('charges a partial refund’s difference from the start', () => {
    const timeline = [{ before: '2026-12-10T00:00:00Z', refund_amount: '150.00', currency: 'GBP' }];
    expect(timelineOf({ cancellation_timeline: timeline }, gbp(20_000), NOW)).toEqual([
      { from: NOW, penalty: gbp(5_000) },
      { from: '2026-12-10T00:00:00Z', penalty: gbp(20_000) },
    ]);
  });

  it('charges everything from the start when nothing is refunded', () => {
    expect(timelineOf({ cancellation_timeline: [] }, gbp(20_000), NOW)).toEqual([{ from: NOW, penalty: gbp(20_000) }]);
  });
});

describe('rooms from Duffel’s guests', () => {
  it('deals adults, then children, to the rooms in turn', () => {
    expect(occupancyOf(2, [{ type: 'adult' }, { type: 'adult' }, { type: 'adult' }, { type: 'child', age: 4 }])).toEqual([
      { adults: 2, children_ages: [4] },
      { adults: 1, children_ages: [] },
    ]);
    expect(occupancyOf(1, [{ type: 'adult' }, { type: 'child', age: 9 }])).toEqual([{ adults: 1, children_ages: [9] }]);
  });
});

describe('the contact’s phone number', () => {
  it('is sent in E.164, and a number that cannot be is refused as the request’s fault', () => {
    expect(e164('+98 912 123-4567')).toBe('+989121234567');
    expect(e164('0044 20 7946 0000')).toBe('+442079460000');
    expect(() => e164('0912 123 4567')).toThrow(expect.objectContaining({ name: 'SupplierRejectedError', status: 422 }));
  });
});

describe('a hold for guests without a contact', () => {
  it('is refused before anything is quoted: the hotel books guests only with a phone number and email', async () => {
    const calls: string[] = [];
    const duffel = { call: async (what: string) => calls.push(what) } as unknown as DuffelCalls;
    const supplier = duffelHotelSupplier(duffel, {} as PlaceIds);
    const guests = [[{ first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR' }]];
    await expect(supplier.hold({ rateId: 'rat_1', clientReference: 'c1', guests })).rejects.toMatchObject({ name: 'SupplierRejectedError', status: 422 });
    expect(calls).toEqual([]);
  });
});
