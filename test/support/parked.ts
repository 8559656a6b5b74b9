import { adminClient } from './clients';
import type { TestStack } from './stack';

/**
 * Polls `admin order inspect` until the order's payment or cancellation has parked for an
 * operator (at step `at`, when given) and answers what the operator sees; fails with the
 * last inspection after `boundMs`.
 */
export async function untilParked(stack: TestStack, orderId: number, opts: { workflow: 'payment' | 'cancellation'; at?: string; boundMs?: number }) {
  const admin = adminClient(stack);
  const deadline = Date.now() + (opts.boundMs ?? 30_000);
  for (;;) {
    const inspected = await admin.get(`/admin/orders/${orderId}`);
    const state = inspected.body[opts.workflow]?.state;
    if (state?.step === 'needs_attention' && (opts.at === undefined || state.parkedAt === opts.at)) return inspected.body;
    if (Date.now() > deadline) {
      throw new Error(`order ${orderId}'s ${opts.workflow} never parked${opts.at ? ` at ${opts.at}` : ''}: ${JSON.stringify(inspected.body)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
