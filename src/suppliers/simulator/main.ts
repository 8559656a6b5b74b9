/** `npm run simulator`: the supplier simulator as its own HTTP service (docker-compose runs it so). */
import { z } from 'zod';
import { listen } from '../../platform/listen';
import { createSimulatorApp } from './app';

const env = z
  .object({
    SIMULATOR_PORT: z.coerce.number().int().min(0).max(65535).default(8090),
    SIMULATOR_HOST: z.string().default('127.0.0.1'),
    SANDBOX_SLOW_MS: z.coerce.number().int().min(0).default(35000),
    SIMULATOR_HOLD_TTL_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(15 * 60 * 1000),
    SIMULATOR_PREBOOK_TTL_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(5 * 60 * 1000),
    SIMULATOR_TICKET_TIME_LIMIT_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(2 * 60 * 60 * 1000),
  })
  .parse(process.env);

void listen(
  createSimulatorApp({
    slowMs: env.SANDBOX_SLOW_MS,
    holdTtlMs: env.SIMULATOR_HOLD_TTL_MS,
    prebookTtlMs: env.SIMULATOR_PREBOOK_TTL_MS,
    ticketTimeLimitMs: env.SIMULATOR_TICKET_TIME_LIMIT_MS,
  }).fetch,
  env.SIMULATOR_PORT,
  env.SIMULATOR_HOST,
).then((s) => console.log(`supplier simulator listening on ${s.url}`));
