import { eq } from 'drizzle-orm';
import type { Db } from '../../src/db/client';
import { orders } from '../../src/db/schema';
import { waitFor } from './wait';

/**
 * Waits until the order's row has `status` (a timer or a workflow moves it), polling every
 * 250 ms; fails after `boundMs` naming the status it saw last.
 */
export async function untilOrderStatus(db: Db, orderId: number, status: string, boundMs = 20_000): Promise<void> {
  let seen = 'not read yet';
  await waitFor(
    async () => (seen = (await db.select({ status: orders.status }).from(orders).where(eq(orders.id, orderId)))[0]?.status ?? 'no such order') === status,
    () => `order ${orderId} to be ${status} (last seen: ${seen})`,
    boundMs,
    250,
  );
}
