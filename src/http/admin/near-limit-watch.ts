import type { DbOrTx } from '../../db/client';
import { creditLeftPercent, partnersNearLimit } from '../../domain/money/credit-alerts';
import { logger } from '../../platform/log';
import { partnersNearLimitGauge } from '../../platform/metrics';

/** How often an API process looks without being scraped: operators hear within this even with no Prometheus. */
export const NEAR_LIMIT_WATCH_MS = 30_000;

/**
 * What operators hear of partners nearing their credit limit (docs/operations.md, "Credit
 * alerts"): on each look (each read of the admin metrics, and every NEAR_LIMIT_WATCH_MS in a
 * serving process), `partners_near_limit` is set from the wallets as they stand, and each
 * partner that has come below its highest threshold since the last look is logged at warn,
 * once, until it rises above it again. The count is read from the database, so it holds
 * whichever process moved the money.
 */
export function nearLimitWatch(db: DbOrTx): () => Promise<void> {
  let known = new Set<number>();
  return async () => {
    const near = await partnersNearLimit(db).catch(() => null);
    // The database is down: the gauge says it does not know, as payments_needs_attention does without Temporal.
    if (!near) return void partnersNearLimitGauge.set(NaN);
    partnersNearLimitGauge.set(near.length);
    const now = new Set(near.map((p) => p.partnerId));
    for (const p of near) {
      if (known.has(p.partnerId)) continue;
      logger.warn(
        {
          partnerId: p.partnerId,
          partner: p.name,
          creditLeftPercent: creditLeftPercent(p),
          below: p.below,
          thresholds: p.thresholds,
          available: p.wallet.balance + p.wallet.creditLimit,
          currency: p.wallet.currency,
        },
        'partner near its credit limit',
      );
    }
    known = now;
  };
}
