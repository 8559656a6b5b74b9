/**
 * npm run bench:pay -- --concurrency N --orders M [--baseline]
 *
 * Against a running engine (API_URL, ADMIN_URL, ADMIN_TOKEN or DATA_DIR/admin-token):
 * creates partners, one product order each per payment, then pays them with N in flight,
 * and prints JSON. double_debits comes from the engine's own reconciliation afterwards.
 * --baseline also times the same wallet debit done directly, one SQL transaction each
 * (on DATABASE_URL if set, else on an in-memory PGlite), for the ratio.
 */
import crypto from 'node:crypto';
import { admin, api, args, percentile, round, type Partner } from './common';

const opts = args({ concurrency: { type: 'string', default: '10' }, orders: { type: 'string', default: '100' }, baseline: { type: 'boolean', default: false } });
const concurrency = Number(opts.concurrency);
const total = Number(opts.orders);

async function prepare(): Promise<Array<{ partner: Partner; orderId: number }>> {
  const partners: Partner[] = [];
  for (let i = 0; i < Math.max(1, Math.ceil(total / 25)); i++) {
    partners.push(await admin<Partner>('POST', '/admin/partners', { name: `bench-${crypto.randomUUID().slice(0, 8)}`, topup: '100000000000' }));
  }
  const jobs: Array<{ partner: Partner; orderId: number }> = [];
  for (let i = 0; i < total; i++) {
    const partner = partners[i % partners.length]!;
    await api(partner, 'POST', '/api/products/basket/items/', { product: 1, variant: 1, quantity: 1 });
    const out = await api(partner, 'POST', '/api/products/checkout/', { payment_method: 'PARTNER_CREDIT' });
    jobs.push({ partner, orderId: (out.body.data as { id: number }).id });
  }
  return jobs;
}

async function payAll(jobs: Array<{ partner: Partner; orderId: number }>) {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < jobs.length) {
        const job = jobs[next++]!;
        const t0 = performance.now();
        const res = await api(job.partner, 'POST', '/api/partners/pay/', { product_order_id: job.orderId, idempotency_key: `bench-${job.orderId}` }).catch(() => ({ status: 0 }));
        latencies.push(performance.now() - t0);
        if (res.status !== 200) errors += 1;
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, latencies: latencies.sort((a, b) => a - b), errors };
}

/** The same debit without the saga: lock the wallet, check, write a ledger row, update the balance. */
async function baseline(n: number) {
  const { openDatabase } = await import('../../src/db/client');
  const { createPartner } = await import('../../src/domain/partners');
  const { recordTopUp, lockWallet, applyMovement } = await import('../../src/domain/wallet');
  const database = await openDatabase({ url: process.env.DATABASE_URL });
  try {
    const partner = await createPartner(database.db, { name: 'bench-baseline', creditLimitMinor: 0, topUpMinor: 0, currency: 'IRT' });
    await database.db.transaction((tx) => recordTopUp(tx, partner.partner_id, 10 ** 13));
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < n) {
          const t0 = performance.now();
          await database.db.transaction(async (tx) => {
            const wallet = await lockWallet(tx, partner.partner_id);
            if (wallet.balance + wallet.creditLimit < 55_000_000) throw new Error('insufficient');
            await applyMovement(tx, wallet, { direction: 'debit', type: 'payment', amount: 55_000_000, note: 'baseline debit' });
          });
          latencies.push(performance.now() - t0);
        }
      }),
    );
    return { seconds: (performance.now() - started) / 1000, latencies: latencies.sort((a, b) => a - b), database: database.kind === 'postgres' ? 'DATABASE_URL' : 'pglite-memory' };
  } finally {
    await database.close();
  }
}

async function main() {
  const jobs = await prepare();
  const run = await payAll(jobs);
  const report = await admin<{ findings: Array<{ kind: string }> }>('GET', '/admin/reconcile');
  const result: Record<string, unknown> = {
    orders: total,
    concurrency,
    pays_per_s: round(total / run.seconds),
    p50_ms: round(percentile(run.latencies, 50)),
    p95_ms: round(percentile(run.latencies, 95)),
    p99_ms: round(percentile(run.latencies, 99)),
    errors: run.errors,
    double_debits: report.findings.filter((f) => f.kind === 'order_payment').length,
  };
  if (opts.baseline) {
    const b = await baseline(total);
    result.baseline = {
      database: b.database,
      debits_per_s: round(total / b.seconds),
      p50_ms: round(percentile(b.latencies, 50), 2),
      p95_ms: round(percentile(b.latencies, 95), 2),
      p99_ms: round(percentile(b.latencies, 99), 2),
    };
    result.orchestration_overhead = { throughput_ratio: round((total / b.seconds) / (total / run.seconds), 1), p50_ratio: round(percentile(run.latencies, 50) / percentile(b.latencies, 50), 1) };
  }
  console.log(JSON.stringify(result));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
