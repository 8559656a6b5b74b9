import { z } from 'zod';
import { envMs } from '../../platform/env';

/**
 * The simulator's settings, read by `npm run simulator` (its own process) and by the engine's
 * configuration when the simulator runs inside `npm start`: one list, one set of defaults.
 */
export const SIMULATOR_SETTINGS = {
  SIMULATOR_PORT: z.coerce.number().int().min(0).max(65535).default(8090),
  SANDBOX_SLOW_MS: envMs(0, 35_000),
  SIMULATOR_HOLD_TTL_MS: envMs(1000, 15 * 60 * 1000),
  SIMULATOR_PREBOOK_TTL_MS: envMs(1000, 5 * 60 * 1000),
  SIMULATOR_TICKET_TIME_LIMIT_MS: envMs(1000, 2 * 60 * 60 * 1000),
  /** How long the simulated airline honours a change offer (and the change made from it). */
  SIMULATOR_CHANGE_OFFER_TTL_MS: envMs(1000, 30 * 60 * 1000),
  /** How long every hotel and flight search waits before it is answered (0: at once). */
  SIMULATOR_SEARCH_DELAY_MS: envMs(0, 0),
  /** Searches a second the simulator accepts, hotels and flights together; above it 429 with Retry-After (0: no limit). */
  SIMULATOR_SEARCH_RATE_PER_S: z.coerce.number().min(0).default(0),
};
