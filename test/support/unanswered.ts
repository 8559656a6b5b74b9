import { eq } from 'drizzle-orm';
import { orders } from '../../src/db/schema';
import { pay, type PaymentUnderWay, type PayRequest } from '../../src/domain/pay-request';
import { authenticatePartner } from '../../src/domain/partners';
import type { TestStack } from './stack';
import { withLogContext } from '../../src/platform/request-context';

/**
 * Pays as the API does, but gives the saga 1 ms to answer: the payment is left under way (the
 * 202 a partner gets when the saga outlasts the pay bound) however long the stack's own bound
 * is, so the holds and bookings a test pays for keep the ordinary wait.
 */
export async function payLeftOpen(
  stack: TestStack,
  creds: { api_key: string; api_secret: string },
  req: PayRequest & { scenario: string },
): Promise<PaymentUnderWay> {
  const partner = await authenticatePartner(stack.db, creds.api_key, creds.api_secret);
  const deps = { db: stack.db, temporal: stack.client, taskQueue: stack.taskQueue, payWaitMs: 1, eagerStart: stack.eagerStart };
  // As the API serves it: in a request's context, acting as the connection the credentials name.
  const outcome = await withLogContext({ actor: partner.principal.actor }, () => pay(deps, partner, req));
  expect(outcome).toMatchObject({ state: 'processing', orderId: req.orderId ?? req.productOrderId });
  return outcome as PaymentUnderWay;
}

/** Waits until the payment's workflow has closed (however it ended) and answers its order's status then. */
export async function settledStatus(stack: TestStack, payment: PaymentUnderWay): Promise<string> {
  await stack.client.workflow
    .getHandle(payment.paymentId)
    .result()
    .catch(() => undefined);
  return (await stack.db.select().from(orders).where(eq(orders.id, payment.orderId)))[0]!.status;
}
