import fs from 'node:fs';
import path from 'node:path';
import {
  DOWN_FAILURES,
  FLAKY_FAILURES,
  SANDBOX_SCENARIO_HEADER,
  SCENARIO_OPERATIONS,
  SCENARIOS,
  SIMULATED_SCENARIOS,
  type SimulatedScenario,
} from '../../src/sandbox/scenarios';
import { createSimulatorApp } from '../../src/suppliers/simulator/app';

/**
 * The sandbox scenarios are a contract (src/sandbox/scenarios.ts) that the supplier simulator
 * implements: every scenario it declares as the simulator's changes what the simulator answers,
 * and the simulator reads the header only through the contract, so it can act on no scenario
 * the contract does not declare (its `scenarioOf` is typed by the contract).
 */
const SLOW_MS = 300;
const simulator = createSimulatorApp({ slowMs: SLOW_MS });
let sequence = 0;
const reference = () => `sandbox-contract-${++sequence}`;

async function call(method: 'GET' | 'POST', url: string, body: unknown, scenario: SimulatedScenario | undefined) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (scenario) headers[SANDBOX_SCENARIO_HEADER] = scenario;
  const res = await simulator.request(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const isoDay = (daysAhead: number) => new Date(Date.now() + daysAhead * 86_400_000).toISOString().slice(0, 10);

/** A product fulfilment, the simplest booking step: what the first call answers, and whether it took its time. */
async function fulfil(scenario: SimulatedScenario | undefined) {
  const started = Date.now();
  const res = await call('POST', '/products/fulfilments', { client_reference: reference(), order_id: 1, items: [{ sku: 'SIM-1', quantity: 1 }] }, scenario);
  return `${res.status} ${Date.now() - started >= SLOW_MS ? 'slow' : 'prompt'}`;
}

async function cancelTour(scenario: SimulatedScenario | undefined) {
  const made = await call('POST', '/tours/bookings', { client_reference: reference() }, undefined);
  return String((await call('POST', `/tours/bookings/${String(made.body.reference)}/cancel`, {}, scenario)).status);
}

async function checkHotelRate(scenario: SimulatedScenario | undefined) {
  const body = { city_id: 1, check_in: isoDay(30), check_out: isoDay(32), nationality: 'IR', rooms: [{ adults: 1 }] };
  const found = await call('POST', '/hotels/availability', body, undefined);
  const hotels = found.body.hotels as Array<{ rates: Array<{ rate_key: string }> }>;
  const rateKey = hotels[0]!.rates[0]!.rate_key;
  const checked = await call('POST', '/hotels/rates/check', { rate_key: rateKey }, scenario);
  return `${checked.status} ${String(checked.body.total_price_minor)}`;
}

/** A ticketed booking THR–MHD 30 days ahead in `family` (its first offer), ticketed under `scenario`. */
async function ticketed(family: string, scenario?: SimulatedScenario): Promise<string> {
  const search = { origin: 'THR', destination: 'MHD', departure_date: isoDay(30), adults: 1, cabin: 'economy' };
  const offers = (await call('POST', '/air/search', search, undefined)).body.offers as Array<{ fare_source_code: string; fare_family: string }>;
  const traveler = {
    first_name: 'Sara',
    last_name: 'Tehrani',
    birth_date: '1990-01-01',
    gender: 'female',
    passenger_type: 'ADT',
    nationality: 'IR',
    national_id: '0012345678',
  };
  const contact = { phone_number: '+98 912 000 0000', email: 'ops@acme.example' };
  const offer = offers.find((o) => o.fare_family === family)!;
  const booked = await call(
    'POST',
    '/air/bookings',
    { fare_source_code: offer.fare_source_code, client_reference: reference(), travelers: [traveler], contact },
    undefined,
  );
  const pnr = String(booked.body.pnr);
  await call('POST', `/air/bookings/${pnr}/ticket`, { client_reference: reference() }, scenario);
  return pnr;
}

async function refundTicket(scenario: SimulatedScenario | undefined) {
  const pnr = await ticketed('Saver');
  return String((await call('POST', `/air/bookings/${pnr}/refund`, { client_reference: reference() }, scenario)).status);
}

/** Offers to fly a Flex ticket (changes free) a day later. */
async function changeOffers(scenario: SimulatedScenario | undefined) {
  const pnr = await ticketed('Flex');
  const change = { remove: [0], add: [{ origin: 'THR', destination: 'MHD', departure_date: isoDay(31), cabin: 'economy' }] };
  return (await call('POST', `/air/bookings/${pnr}/change_requests`, change, scenario)).body.offers as Array<{
    change_offer_id: string;
    penalty_minor: number;
  }>;
}

async function changePenalty(scenario: SimulatedScenario | undefined) {
  return String((await changeOffers(scenario))[0]!.penalty_minor);
}

async function makeChange(scenario: SimulatedScenario | undefined) {
  const [offer] = await changeOffers(scenario);
  return String((await call('POST', '/air/order_changes', { change_offer_id: offer!.change_offer_id }, undefined)).status);
}

async function airlineChanges(scenario: SimulatedScenario | undefined) {
  const pnr = await ticketed('Saver', scenario);
  return String(((await call('GET', `/air/bookings/${pnr}/airline_changes`, undefined, undefined)).body.airline_changes as unknown[]).length);
}

/** A booking with the first seat for sale on its flight, made under `scenario`. */
async function bookSeat(scenario: SimulatedScenario | undefined) {
  const search = { origin: 'THR', destination: 'MHD', departure_date: isoDay(33), adults: 1, cabin: 'economy' };
  const [offer] = (await call('POST', '/air/search', search, undefined)).body.offers as Array<{ fare_source_code: string }>;
  const maps = (await call('POST', '/air/seat_maps', { fare_source_code: offer!.fare_source_code }, undefined)).body.seat_maps as Array<{
    cabins: Array<{ rows: Array<{ seats: Array<{ prices: Array<{ service_id: string }> }> }> }>;
  }>;
  const seat = maps[0]!.cabins[0]!.rows.flatMap((r) => r.seats).find((s) => s.prices.length > 0)!;
  const body = {
    fare_source_code: offer!.fare_source_code,
    client_reference: reference(),
    travelers: [{ first_name: 'Sara', last_name: 'Tehrani', birth_date: '1990-01-01', gender: 'female', passenger_type: 'ADT', nationality: 'IR' }],
    contact: { phone_number: '+98 912 000 0000', email: 'ops@acme.example' },
    services: [{ service_id: seat.prices[0]!.service_id, quantity: 1 }],
  };
  const booked = await call('POST', '/air/bookings', body, scenario);
  // The seat goes back on sale for the next probe.
  if (booked.status === 201) await call('POST', `/air/bookings/${String(booked.body.pnr)}/cancel`, {}, undefined);
  return String(booked.status);
}

async function addBag(scenario: SimulatedScenario | undefined) {
  const pnr = await ticketed('Saver');
  const [bag] = (await call('GET', `/air/bookings/${pnr}/services`, undefined, undefined)).body.services as Array<{ service_id: string; price_minor: number }>;
  const body = { services: [{ service_id: bag!.service_id, quantity: 1 }], payment: { amount_minor: bag!.price_minor, currency: 'IRT' } };
  return String((await call('POST', `/air/bookings/${pnr}/services`, body, scenario)).status);
}

/** For every scenario the simulator plays, a call whose answer shows it. */
const PROBES: Record<SimulatedScenario, (scenario: SimulatedScenario | undefined) => Promise<string>> = {
  supplier_reject: fulfil,
  supplier_flaky: fulfil,
  supplier_slow: fulfil,
  supplier_down: fulfil,
  supplier_lost_response: fulfil,
  price_changed: checkHotelRate,
  cancel_reject: cancelTour,
  refund_reject: refundTicket,
  change_penalty: changePenalty,
  change_offer_expires: makeChange,
  schedule_change: airlineChanges,
  seat_taken: bookSeat,
  bag_refused: addBag,
};

describe('the sandbox scenarios contract', () => {
  it('has a probe for exactly the scenarios it gives the simulator', () => {
    expect(Object.keys(PROBES).sort()).toEqual([...SIMULATED_SCENARIOS].sort());
  });

  it.each(SIMULATED_SCENARIOS)('the simulator plays %s', async (scenario) => {
    const probe = PROBES[scenario];
    const plain = await probe(undefined);
    expect(await probe(scenario)).not.toEqual(plain);
  });

  it('supplier_flaky and supplier_down fail as many calls as the contract says, then the step is made', async () => {
    for (const [scenario, failures] of [
      ['supplier_flaky', FLAKY_FAILURES],
      ['supplier_down', DOWN_FAILURES],
    ] as const) {
      const body = { client_reference: reference(), order_id: 1, items: [{ sku: 'SIM-1', quantity: 1 }] };
      const statuses: number[] = [];
      for (let i = 0; i <= failures; i++) statuses.push((await call('POST', '/products/fulfilments', body, scenario)).status);
      expect(statuses).toEqual([...Array<number>(failures).fill(503), 201]);
    }
  });

  it('the simulator ignores a scenario the contract does not give it', async () => {
    const header = (value: string) => ({ 'content-type': 'application/json', [SANDBOX_SCENARIO_HEADER]: value });
    for (const value of ['visa_reject', 'supplier_on_fire']) {
      const res = await simulator.request('/products/fulfilments', {
        method: 'POST',
        headers: header(value),
        body: JSON.stringify({ client_reference: reference(), order_id: 1, items: [{ sku: 'SIM-1', quantity: 1 }] }),
      });
      expect(res.status).toBe(201);
    }
  });

  it('the simulator reads the header in one place, through the contract', () => {
    const root = path.resolve(__dirname, '../../src/suppliers/simulator');
    const files = fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const readers = files.filter((f) =>
      /SANDBOX_SCENARIO_HEADER|x-sandbox-scenario/i.test(fs.readFileSync(path.join(root, f), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '')),
    );
    expect(readers).toEqual(['scenarios.ts']);
  });

  it('every declared scenario is accepted by some operation, and every effect by its operation', () => {
    const operations = Object.values(SCENARIO_OPERATIONS) as Array<{ accepts: readonly string[]; effects: Record<string, string> }>;
    const accepted = new Set(operations.flatMap((o) => o.accepts));
    expect([...accepted].sort()).toEqual(Object.keys(SCENARIOS).sort());
    for (const o of operations) for (const s of Object.keys(o.effects)) expect(o.accepts).toContain(s);
  });
});
