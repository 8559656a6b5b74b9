/**
 * npm run duffel:stand-in
 *
 * Runs the Duffel API stand-in (test/support/duffel) on its own, for walk-throughs and chaos
 * runs: point the engine at it with DUFFEL_API_URL=http://127.0.0.1:4010 and any
 * `duffel_test_…` token. Settings: DUFFEL_STAND_IN_PORT (4010), DUFFEL_STAND_IN_HOST
 * (127.0.0.1), DUFFEL_STAND_IN_RATE_LIMIT (requests per token per second; off when unset),
 * DUFFEL_STAND_IN_WEBHOOK_URL and DUFFEL_STAND_IN_WEBHOOK_SECRET (where Duffel's webhooks go,
 * signed with that secret; none sent when unset).
 * Its controls are under /_stand_in (see test/support/duffel/README.md).
 */
import { startDuffelStandIn } from '../test/support/duffel';

function setting(name: string, fallback: number | null): number | null {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    process.stderr.write(`${name} must be a whole number, not '${raw}'\n`);
    process.exit(2);
  }
  return value;
}

async function main(): Promise<void> {
  const standIn = await startDuffelStandIn({
    port: setting('DUFFEL_STAND_IN_PORT', 4010) ?? 4010,
    host: process.env.DUFFEL_STAND_IN_HOST || '127.0.0.1',
    rateLimitPerSecond: setting('DUFFEL_STAND_IN_RATE_LIMIT', null),
    webhookUrl: process.env.DUFFEL_STAND_IN_WEBHOOK_URL || undefined,
    webhookSecret: process.env.DUFFEL_STAND_IN_WEBHOOK_SECRET || undefined,
  });
  process.stdout.write(`Duffel stand-in listening on ${standIn.url} (DUFFEL_API_URL=${standIn.url})\n`);
  const stop = () => void standIn.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
