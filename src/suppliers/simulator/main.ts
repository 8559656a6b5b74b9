/** `npm run simulator`: the supplier simulator as its own HTTP service (docker-compose runs it so). */
import { z } from 'zod';
import { listen } from '../../platform/listen';
import { createSimulatorApp } from './app';
import { SIMULATOR_SETTINGS } from './settings';

const env = z.object({ ...SIMULATOR_SETTINGS, SIMULATOR_HOST: z.string().default('127.0.0.1') }).parse(process.env);

void listen(
  createSimulatorApp({
    slowMs: env.SANDBOX_SLOW_MS,
    holdTtlMs: env.SIMULATOR_HOLD_TTL_MS,
    prebookTtlMs: env.SIMULATOR_PREBOOK_TTL_MS,
    ticketTimeLimitMs: env.SIMULATOR_TICKET_TIME_LIMIT_MS,
    changeOfferTtlMs: env.SIMULATOR_CHANGE_OFFER_TTL_MS,
    searchDelayMs: env.SIMULATOR_SEARCH_DELAY_MS,
    searchRatePerS: env.SIMULATOR_SEARCH_RATE_PER_S,
  }).fetch,
  env.SIMULATOR_PORT,
  env.SIMULATOR_HOST,
).then((s) => console.log(`supplier simulator listening on ${s.url}`));
