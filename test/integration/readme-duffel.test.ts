import { desc } from 'drizzle-orm';
import { flightBookings } from '../../src/db/schema';
import { call, newPartner } from '../support/clients';
import { startDuffelStandIn, type DuffelStandIn } from '../support/duffel';
import { day } from '../support/fixtures';
import { guides, readDoc, walkThrough } from '../support/readme';
import { GBP_RATE, setRate } from '../support/rates';
import { ledgerDiscrepancies, startStack, type TestStack } from '../support/stack';
import { runWalkThrough } from '../support/walkthrough';

/**
 * The README's walk-through and the hotel and flight guides run as written with flights and
 * hotels sold by Duffel (FLIGHT_SUPPLIER=duffel HOTEL_SUPPLIER=duffel) against the Duffel
 * stand-in, after an operator set the rates of the currencies it prices in.
 */

let standIn: DuffelStandIn;
let stack: TestStack;

beforeAll(async () => {
  standIn = await startDuffelStandIn();
  stack = await startStack({
    payWaitMs: 8_000,
    finalizeAttempts: 3,
    env: { FLIGHT_SUPPLIER: 'duffel', HOTEL_SUPPLIER: 'duffel', DUFFEL_ACCESS_TOKEN: 'duffel_test_walkthrough', DUFFEL_API_URL: standIn.url },
  });
  for (const [from, rate] of [
    ['GBP', GBP_RATE],
    ['EUR', 45_000],
    ['USD', 42_000],
  ] as const) {
    expect((await setRate(stack, from, rate)).status).toBe(201);
  }
});
afterAll(async () => {
  await stack?.close();
  await standIn?.stop();
});

/**
 * The airline's schedule changes, which the simulator makes on the sandbox header the
 * walk-through pays with, are made here by the stand-in's control before the operator's poll,
 * on the newest flight.
 */
const WALK_THROUGHS = (heading: string) => /^walk-through\b/i.test(heading);
const ON_DUFFEL = ['docs/guides/hotel-stay.md', 'docs/guides/flight.md'];

it('the README, hotel and flight walk-throughs run as written on Duffel', async () => {
  const docs = [readDoc('README.md'), ...guides().filter((g) => ON_DUFFEL.includes(g.file))];
  expect(docs.map((d) => d.file)).toEqual(['README.md', ...ON_DUFFEL]);
  const answers = await runWalkThrough(stack, walkThrough(docs, WALK_THROUGHS), async (argv) => {
    if (argv.join(' ') !== 'schedule-changes poll') return;
    const [newest] = await stack.db.select({ ref: flightBookings.supplierBookingRef }).from(flightBookings).orderBy(desc(flightBookings.id)).limit(1);
    await standIn.control.plantAirlineChange(newest!.ref!, { shiftMinutes: 180, deliver: 'none' });
  });
  // The hotel was booked and cancelled at Duffel; the flights held, paid, changed, given a bag, cancelled and refunded there.
  const paths = answers.map((a) => a.path);
  expect(paths).toEqual(expect.arrayContaining(['/api/hotel/cancel/', '/api/flights/air_refund/']));
  expect(standIn.control.requests('POST /stays/bookings').filter((r) => r.status === 201)).toHaveLength(1);
  expect(standIn.control.requests('POST /stays/bookings/:id/actions/cancel')).toHaveLength(1);
  // The first flight, its change to another date and the bag added later, then the flight
  // cancelled after the airline's change, then the flight with a seat and a bag (made and paid
  // at once when it was paid): each paid once. The airline's change to the first was
  // accepted, the second flight cancelled, the first refunded: each confirmed once.
  const [first, second, third] = [...new Set(standIn.control.payments().map((p) => p.order_id))];
  expect(standIn.control.payments().map((p) => p.order_id)).toEqual([first, first, first, second, third]);
  const made = standIn.control.requests('POST /air/orders').filter((r) => r.status === 201);
  expect(made.map((r) => (r.body as { type: string; services?: unknown[] }).type)).toEqual(['hold', 'hold', 'instant']);
  expect((made[2]!.body as { services: Array<{ id: string }> }).services).toHaveLength(2);
  expect(standIn.control.requests('POST /air/order_changes/:id/actions/confirm').filter((r) => r.status === 200)).toHaveLength(1);
  expect(standIn.control.requests('POST /air/orders/:id/services').filter((r) => r.status === 201)).toHaveLength(1);
  expect(standIn.control.requests('POST /air/airline_initiated_changes/:id/actions/accept').filter((r) => r.status === 200)).toHaveLength(1);
  expect(standIn.control.requests('POST /air/order_cancellations/:id/actions/confirm')).toHaveLength(2);
  expect(await ledgerDiscrepancies(stack.db)).toEqual([]);
});

// After the walk-throughs, whose ids are a fresh database's.
it('refuses an Interface B hotel booking when Duffel needs a phone number and the engine has none to give', async () => {
  const { creds } = await newPartner(stack, '0', '900000000');
  const auth = { authorization: `Bearer ${creds.agency_key}` };
  const quotes = standIn.control.requests('POST /stays/quotes').length;
  const booking = await call(stack.app, 'POST', '/v1/hotels/bookings', auth, {
    hotel_id: '1',
    room_id: 'R0000ABCD-RO-FLEX',
    guest_name: 'Sara Ahmadi',
    guest_email: 'sara@example.com',
    check_in: day(90),
    check_out: day(92),
  });
  expect(booking.status).toBe(409);
  expect(JSON.stringify(booking.body)).toMatch(/contact phone number.*Interface A/);
  expect(standIn.control.requests('POST /stays/quotes')).toHaveLength(quotes);
});
