import { sql } from 'drizzle-orm';
import type { Client } from '@temporalio/client';
import type { Db } from '../db/client';
import type { HealthReport } from './deps';

type Check = () => Promise<string | void>;

async function run(check: Check): Promise<{ ok: boolean; detail?: string }> {
  try {
    const detail = await check();
    return detail ? { ok: true, detail } : { ok: true };
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  }
}

/**
 * Readiness: the database answers, Temporal answers, and a worker polls the task queue
 * (or, in the all-in-one process, the in-process worker is running).
 */
export function healthCheck(opts: { db: Db; temporal: Client; namespace: string; taskQueue: string; workerRunning?: () => boolean }) {
  const checks: Record<string, Check> = {
    database: async () => {
      await opts.db.execute(sql`select 1`);
    },
    temporal: async () => {
      await opts.temporal.connection.workflowService.getSystemInfo({});
    },
    worker: async () => {
      if (opts.workerRunning) {
        if (!opts.workerRunning()) throw new Error('the in-process worker is not running');
        return;
      }
      const res = await opts.temporal.connection.workflowService.describeTaskQueue({
        namespace: opts.namespace,
        taskQueue: { name: opts.taskQueue },
      });
      if (!res.pollers?.length) throw new Error(`no worker polls task queue ${opts.taskQueue}`);
    },
  };
  return async (): Promise<HealthReport> => {
    const entries = await Promise.all(Object.entries(checks).map(async ([name, check]) => [name, await run(check)] as const));
    const results = Object.fromEntries(entries);
    return { ok: entries.every(([, r]) => r.ok), checks: results };
  };
}
