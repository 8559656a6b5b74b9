import type { Client } from '@temporalio/client';
import type { Env, Hono } from 'hono';
import type { Db } from '../../db/client';
import { DomainError } from '../../domain/errors';
import { pollScheduleChanges, untilRecorded } from '../../domain/flights/schedule-change-runs';
import { scheduleChangeView } from '../../domain/flights/schedule-change-view';
import { openScheduleChanges } from '../../domain/flights/schedule-changes';
import type { FlightAfterSale } from '../../suppliers/flight-after-sale';
import { scheduleChangeWorkflowId } from '../../../workflows/schedule-change.types';

/** What the operators' schedule-change routes work with; without `afterSaleOf` this process cannot ask the airlines. */
export interface ScheduleChangeAdminDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  /** How long a poll round asked for now waits for the changes it found to be recorded (PAY_WAIT_MS). */
  waitMs: number;
  afterSaleOf?: (supplier: string) => FlightAfterSale;
}

/**
 * `admin schedule-changes`: the airline schedule changes still waiting for a partner's
 * decision, the nearest deadline first, each with its order, partner and workflow.
 * `admin schedule-changes poll`: one round of the workers' poll, now, answered once the changes
 * it found are recorded and told (or after PAY_WAIT_MS).
 */
export function scheduleChangeAdminRoutes<E extends Env>(app: Hono<E>, deps: ScheduleChangeAdminDeps): void {
  const { db } = deps;
  app.post('/admin/schedule-changes/poll', async (c) => {
    const afterSaleOf = deps.afterSaleOf;
    if (!afterSaleOf) throw new DomainError('supplier_failed', 'this process has no supplier configuration to ask the airlines with');
    const started = await pollScheduleChanges({ db, temporal: deps.temporal, taskQueue: deps.taskQueue, afterSaleOf });
    await untilRecorded(deps.temporal, started, deps.waitMs);
    return c.json({ started: started.length, workflow_ids: started });
  });
  app.get('/admin/schedule-changes', async (c) => {
    const open = await openScheduleChanges(db);
    return c.json({
      count: open.length,
      results: open.map((r) => ({
        order_id: r.orderId,
        partner_id: r.partnerId,
        supplier: r.supplier,
        workflow_id: scheduleChangeWorkflowId(r.orderId, r.changeId),
        detected_at: r.createdAt.toISOString(),
        ...scheduleChangeView(r),
      })),
    });
  });
}
