/**
 * The sandbox scenarios: what a partner can ask the sandbox to simulate with the
 * X-Sandbox-Scenario header, declared once. Three parties read this contract:
 *
 * - the API accepts and documents the header per operation (src/http/sandbox-scenario.ts);
 * - the supplier simulator (src/suppliers/simulator) plays every scenario `playedBy: 'simulator'`;
 * - the engine itself plays the sandbox embassy's decision (`playedBy: 'embassy'`, the visa routes).
 *
 * It depends on nothing: the API never needs the simulator to know what it may ask of it.
 */

/** The header a partner sends to the engine, and the engine passes on to a simulated supplier. */
export const SANDBOX_SCENARIO_HEADER = 'X-Sandbox-Scenario';

/** supplier_flaky answers 503 this many times per client reference, then succeeds. */
export const FLAKY_FAILURES = 2;
/**
 * supplier_down answers 503 to this many calls per client reference (requests and status
 * look-ups alike) — more than the engine's retries and look-ups — then recovers: the
 * outcome stays unknown until an operator acts.
 */
export const DOWN_FAILURES = 8;

interface ScenarioDeclaration {
  /** Who acts it out: a simulated supplier, or the engine's sandbox embassy. */
  playedBy: 'simulator' | 'embassy';
  /** Which simulated services play it, on which of their calls. */
  on: string;
  /** What it simulates. */
  does: string;
}

/** Every scenario. */
export const SCENARIOS = {
  supplier_reject: {
    playedBy: 'simulator',
    on: 'every booking step: product fulfilments, hotel confirmations, air ticketing, tour, residence and visa requests and their amendments',
    does: 'the supplier refuses the step (422)',
  },
  supplier_flaky: {
    playedBy: 'simulator',
    on: 'every booking step',
    does: `the supplier answers 503 ${FLAKY_FAILURES} times per client reference, then accepts`,
  },
  supplier_slow: {
    playedBy: 'simulator',
    on: 'every booking step',
    does: 'the supplier takes SANDBOX_SLOW_MS before it answers',
  },
  supplier_down: {
    playedBy: 'simulator',
    on: 'every booking step and its status look-ups',
    does: `the supplier answers 503 to the first ${DOWN_FAILURES} calls of a client reference (more than the engine retries), the step never made`,
  },
  supplier_lost_response: {
    playedBy: 'simulator',
    on: 'every booking step',
    does: 'the supplier makes the step, but every answer to it is a 504: only a status look-up tells',
  },
  price_changed: {
    playedBy: 'simulator',
    on: 'hotel rate checks and holds; air revalidation',
    does: 'the price rose since the search (hotels 7%, fares 5%)',
  },
  cancel_reject: {
    playedBy: 'simulator',
    on: 'hotel, tour, residence and visa cancellations',
    does: 'the supplier refuses the cancellation (422)',
  },
  refund_reject: {
    playedBy: 'simulator',
    on: 'air refunds',
    does: 'the airline refuses the refund (422)',
  },
  change_penalty: {
    playedBy: 'simulator',
    on: 'air change requests',
    does: 'the airline charges a penalty on the change whatever the fare: at least 25% of the changed legs’ base fares (a Saver’s)',
  },
  change_offer_expires: {
    playedBy: 'simulator',
    on: 'air change requests',
    does: 'the change offers expire as they are made: making or confirming a change from one is refused (410)',
  },
  schedule_change: {
    playedBy: 'simulator',
    on: 'air ticketing',
    does: 'once the tickets are issued the airline moves the first flight 3 hours later: a schedule change to accept, cancel (a full refund) or change',
  },
  seat_taken: {
    playedBy: 'simulator',
    on: 'air bookings with seats',
    does: 'the first seat chosen was taken meanwhile: the booking is refused (409) and nothing is booked',
  },
  bag_refused: {
    playedBy: 'simulator',
    on: 'bags added to a ticketed air booking',
    does: 'the airline refuses the bags (422): nothing is added or charged',
  },
  visa_approve: {
    playedBy: 'embassy',
    on: 'visa applications',
    does: 'the sandbox embassy approves the paid application after SANDBOX_VISA_DECISION_MS (the default)',
  },
  visa_reject: {
    playedBy: 'embassy',
    on: 'visa applications',
    does: 'the sandbox embassy refuses the paid application after SANDBOX_VISA_DECISION_MS',
  },
} as const satisfies Record<string, ScenarioDeclaration>;

export type SandboxScenario = keyof typeof SCENARIOS;

/** A scenario the supplier simulator plays. */
export type SimulatedScenario = { [S in SandboxScenario]: (typeof SCENARIOS)[S]['playedBy'] extends 'simulator' ? S : never }[SandboxScenario];

/** The scenarios the simulator plays, as a list. */
export const SIMULATED_SCENARIOS = (Object.keys(SCENARIOS) as SandboxScenario[]).filter((s): s is SimulatedScenario => SCENARIOS[s].playedBy === 'simulator');

/** Whether `value` names a scenario the simulator plays. */
export const isSimulatedScenario = (value: string | undefined): value is SimulatedScenario =>
  value !== undefined && (SIMULATED_SCENARIOS as readonly string[]).includes(value);

/** What every booking step of a simulated supplier plays. */
const BOOKING_STEP = ['supplier_reject', 'supplier_flaky', 'supplier_slow', 'supplier_down', 'supplier_lost_response'] as const;
const FLIGHTS = ['price_changed', 'supplier_reject', 'supplier_flaky', 'supplier_slow', 'refund_reject'] as const;
const HOTELS = ['price_changed', 'supplier_reject', 'supplier_flaky', 'supplier_slow', 'cancel_reject'] as const;
const VISA = ['visa_approve', 'visa_reject'] as const;
const AGENCY = ['supplier_reject', 'supplier_flaky', 'supplier_slow'] as const;

/**
 * One operation's use of the header: `accepts` is every value it takes (its enum, in the order
 * the document lists it), `effects` what a value does on this operation, as the partner sees it.
 * An accepted value without an effect is taken and ignored there: a narrower enum would refuse
 * requests that are accepted today.
 */
export interface ScenarioOperation<S extends readonly [SandboxScenario, ...SandboxScenario[]]> {
  accepts: S;
  effects: Partial<Record<S[number], string>>;
}

const operation = <const S extends readonly [SandboxScenario, ...SandboxScenario[]]>(
  accepts: S,
  effects: Partial<Record<S[number], string>>,
): ScenarioOperation<S> => ({
  accepts,
  effects,
});

const PRICE_ROSE = 'the hotel’s price rose 7% since the search';
const AGENCY_EFFECTS = {
  supplier_reject: 'the supplier refuses: 500 once everything was undone; nothing is charged',
  supplier_flaky: 'the supplier answers 503 twice, then accepts: 201, one debit',
  supplier_slow: 'the supplier takes `SANDBOX_SLOW_MS` (35 s), longer than the wait: 202; read the booking or order later for the outcome',
} as const;

/** Every operation that takes the header, by the API's name for it. */
export const SCENARIO_OPERATIONS = {
  /** Interface A: POST /partners/pay/ */
  pay: operation(BOOKING_STEP, {
    supplier_reject: 'the supplier refuses the booking for good: 502, the debit is reversed and the order is payable again',
    supplier_flaky: 'the supplier answers 503 twice, then accepts: 200, one debit',
    supplier_slow: 'the supplier takes `SANDBOX_SLOW_MS` (35 s), longer than the pay wait: 202 `processing`; the order lists show the outcome',
    supplier_lost_response:
      'the supplier books, but every answer is lost (504): after its attempts (≈ 15 s by default, within the pay wait) the engine asks the supplier by reference, finds the booking and completes the order: 200',
    supplier_down:
      'the supplier answers 503 to the request and to status look-ups for a while: products, tours, residence and visa answer 202 and wait in `needs_attention` for an operator; hotels and flights answer 502, the hold or PNR showing nothing booked, and the debit is refunded',
  }),
  /** Interface A: POST /residence/bookings/modify/ */
  residenceModify: operation(BOOKING_STEP, {
    supplier_reject: 'the host refuses the change: 502, the change is undone (the stay and the wallet as they were)',
    supplier_flaky: 'the host answers 503 twice, then takes the change: 200',
    supplier_slow: 'the host takes `SANDBOX_SLOW_MS` (35 s) to answer, then takes the change: 200',
    supplier_lost_response:
      'the host takes the change, but every answer is lost (504): after its attempts (≈ 15 s) the engine asks the host what it holds, finds the change and keeps it: 200',
    supplier_down:
      'the host answers 503 to the change and to look-ups for a while: after its attempts the engine asks the host, finds the stay unchanged and undoes the change: 502, the stay and the wallet as they were',
  }),
  /** Interface A: POST /flights/revalidate_flight/ */
  flightRevalidate: operation(FLIGHTS, {
    price_changed: 'the fare rose 5%: `price_changed: true` and a new `fare_source_code` that carries the new price (book with it)',
  }),
  /** Interface A: the flight refund */
  flightRefund: operation(FLIGHTS, { refund_reject: 'the airline refuses the refund: 502, nothing is refunded and the ticket stands' }),
  /** Interface A: the hotel rate check */
  hotelRate: operation(HOTELS, { price_changed: `${PRICE_ROSE}: \`price_changed: true\` and the new \`total_price\`` }),
  /** Interface A: the hotel prebook and book */
  hotelHold: operation(HOTELS, { price_changed: `${PRICE_ROSE}: the hold, and the order made from it, take the new price` }),
  /** Interface A: the hotel cancellation */
  hotelCancel: operation(HOTELS, {
    cancel_reject: 'the hotel refuses the cancellation: 502, nothing is refunded and the order stays `completed`; cancel again later',
  }),
  /** Interface A: POST /visa/request/ */
  visaRequest: operation(VISA, {
    visa_approve: 'the default: once the order is paid and the application submitted, the sandbox embassy approves it after `SANDBOX_VISA_DECISION_MS`',
    visa_reject: 'the sandbox embassy refuses it after `SANDBOX_VISA_DECISION_MS`; the product’s share of the service fee is refunded to the wallet',
  }),
  /** Interface A: the flight's payment, which tickets it */
  flightTicketing: operation(['schedule_change'], {
    schedule_change:
      'the tickets are issued, then the airline moves the first flight 3 hours later: the order shows a schedule change to accept, cancel or change',
  }),
  /** Interface A: the partner's decision on an airline schedule change (accepting it at the airline) */
  scheduleChangeDecision: operation(['supplier_flaky', 'supplier_lost_response'], {
    supplier_flaky: 'the airline answers the acceptance 503 twice, then takes it: 200 `accepted`',
    supplier_lost_response:
      'the airline takes the acceptance, but every answer to it is lost (504): the engine asks the airline before trying again, finds the change accepted and does not accept it twice: 200 `accepted`',
  }),
  /** Interface A: a change of a ticketed flight (its offers) */
  flightChangeRequest: operation(['change_penalty', 'change_offer_expires'], {
    change_penalty:
      'the airline charges a penalty on the change whatever the fare (25% of the changed legs’ base fares): each offer’s penalty and total show it',
    change_offer_expires: 'the offers expire as they are made: confirming one is refused and nothing is charged',
  }),
  /** Interface A: a change of a ticketed flight made (air_change_confirm) */
  flightChange: operation(['supplier_reject', 'supplier_lost_response', 'supplier_down'], {
    supplier_reject: 'the airline refuses the change: 502, any debit is credited back and the order is as it was',
    supplier_lost_response:
      'the airline makes the change, but every answer is lost (504): each try looks the change up first, finds it made and confirmed, and completes it: 200, charged once',
    supplier_down:
      'the airline answers 503 to the change and to look-ups: after its tries the change waits in `needs_attention` for an operator (202); the debit stands until an operator retries or compensates',
  }),
  /** Interface A: a flight booking (`air_booking`) with seats */
  flightBooking: operation(['seat_taken'], {
    seat_taken: 'the first seat chosen was taken meanwhile: the airline refuses the booking and nothing is booked; choose another seat',
  }),
  /** Interface A: bags added to a ticketed flight */
  flightServices: operation(['bag_refused', 'supplier_lost_response'], {
    bag_refused: 'the airline refuses the bags: 502, nothing is added and the debit is credited back',
    supplier_lost_response:
      'the airline adds the bags, but every answer is lost (504): each try counts the bags on the order first, finds them added, and completes: 200, charged once',
  }),
  /** Interface B: a hotel booking, settled at creation */
  agencyBooking: operation(AGENCY, AGENCY_EFFECTS),
  /** Interface B: a product order, settled at creation */
  agencyOrder: operation(AGENCY, AGENCY_EFFECTS),
} as const;

export type ScenarioOperationName = keyof typeof SCENARIO_OPERATIONS;
