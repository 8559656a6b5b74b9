import { startDuffelStandIn, type DuffelStandIn } from './duffel';
import { day } from './fixtures';
import { GBP_RATE, setRate } from './rates';
import { startStack, type TestStack } from './stack';

/** A traveller Duffel's fares take: a British adult with a passport. */
export const britishTraveller = {
  first_name: 'Amelia',
  last_name: 'Hart',
  birth_date: '1984-02-03',
  gender: 'female' as const,
  passenger_type: 'ADT' as const,
  nationality: 'GB',
  passport_number: '533112298',
  passport_expiry_date: day(2000),
};

/**
 * A file's engine selling Duffel's flights against the stand-in, started before its tests and
 * stopped after them, with the GBP rate set; `onReady` is handed both.
 */
export function useDuffelEngine(onReady: (s: { standIn: DuffelStandIn; stack: TestStack }) => void): void {
  let standIn: DuffelStandIn | undefined;
  let stack: TestStack | undefined;
  beforeAll(async () => {
    standIn = await startDuffelStandIn();
    stack = await startStack({
      payWaitMs: 2_000,
      env: { FLIGHT_SUPPLIER: 'duffel', DUFFEL_ACCESS_TOKEN: 'duffel_test_chaos', DUFFEL_API_URL: standIn.url },
    });
    expect((await setRate(stack, 'GBP', GBP_RATE)).status).toBe(201);
    onReady({ standIn, stack });
  });
  afterAll(async () => {
    await stack?.close();
    await standIn?.stop();
  });
}

/** Kills the worker (no goodbye) a moment after the calls went out, and brings it back. */
export async function killWorkerMeanwhile(stack: TestStack): Promise<void> {
  await new Promise((r) => setTimeout(r, 300));
  await stack.stopWorker({ crash: true });
  await new Promise((r) => setTimeout(r, 1_500));
  await stack.startWorker();
}
