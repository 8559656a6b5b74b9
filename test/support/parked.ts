import { adminClient, type Reply } from './clients';
import type { TestStack } from './stack';
import { waitFor } from './wait';

/**
 * Polls `admin order inspect` until the order's payment or cancellation has parked for an
 * operator (at step `at`, when given) and answers what the operator sees; fails with the
 * last inspection after `boundMs`.
 */
export async function untilParked(stack: TestStack, orderId: number, opts: { workflow: 'payment' | 'cancellation'; at?: string; boundMs?: number }) {
  const admin = adminClient(stack);
  let inspected: Reply['body'];
  await waitFor(
    async () => {
      inspected = (await admin.get(`/admin/orders/${orderId}`)).body;
      const state = inspected[opts.workflow]?.state;
      return state?.step === 'needs_attention' && (opts.at === undefined || state.parkedAt === opts.at);
    },
    () => `order ${orderId}'s ${opts.workflow} to park${opts.at ? ` at ${opts.at}` : ''}; last inspection: ${JSON.stringify(inspected)}`,
    opts.boundMs ?? 30_000,
    200,
  );
  return inspected;
}
