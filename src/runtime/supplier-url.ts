import type { Config } from '../config';
import { startSimulator } from '../suppliers/simulator/app';
import type { ShutdownList } from '../platform/shutdown-list';

/** The supplier base URL: SUPPLIER_URL, or the built-in simulator started here. */
export async function supplierUrl(config: Config, shutdown: ShutdownList): Promise<{ url: string; builtIn: boolean }> {
  if (config.SUPPLIER_URL) return { url: config.SUPPLIER_URL, builtIn: false };
  const simulator = await startSimulator({
    port: config.SIMULATOR_PORT,
    slowMs: config.SANDBOX_SLOW_MS,
    holdTtlMs: config.SIMULATOR_HOLD_TTL_MS,
    prebookTtlMs: config.SIMULATOR_PREBOOK_TTL_MS,
    ticketTimeLimitMs: config.SIMULATOR_TICKET_TIME_LIMIT_MS,
    changeOfferTtlMs: config.SIMULATOR_CHANGE_OFFER_TTL_MS,
    searchDelayMs: config.SIMULATOR_SEARCH_DELAY_MS,
    searchRatePerS: config.SIMULATOR_SEARCH_RATE_PER_S,
  });
  shutdown.add(() => simulator.close());
  return { url: simulator.url, builtIn: true };
}

/**
 * Separate API and worker processes must talk to one and the same supplier (a hold placed
 * by the worker is booked from a rate the API found), so neither starts its own simulator.
 */
export function requireSupplierUrl(config: Config): string {
  if (!config.SUPPLIER_URL) throw new Error('SUPPLIER_URL is required for npm run api / npm run worker (run `npm run simulator` for a sandbox supplier)');
  return config.SUPPLIER_URL;
}
