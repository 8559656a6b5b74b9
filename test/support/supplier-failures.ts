import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { Reply } from './clients';

/** The failures every supplier call is tried with, as docs/suppliers.md's outcome table names its columns. */
export const SUPPLIER_FAILURES = ['400', '404', '409', '422', '429', '500', '503', 'timeout', 'malformed', 'lost'] as const;
export type SupplierFailure = (typeof SUPPLIER_FAILURES)[number];

/** What the partner is answered: an HTTP status, and what the table adds after it. */
export interface Outcome {
  status: number;
  note: string;
}

const HEADING = '## Every supplier failure, answered';

/**
 * The outcome table of docs/suppliers.md, as the tests read it: one row per supplier, flow and
 * call, one column per failure; a cell is the status the partner is answered, then a word on
 * what happened. Keyed `<supplier> <flow> <call>` (the call without its backticks).
 */
export function outcomeTable(): Map<string, Record<SupplierFailure, Outcome>> {
  const doc = fs.readFileSync(path.join(__dirname, '../../docs/suppliers.md'), 'utf8');
  const start = doc.indexOf(HEADING);
  if (start < 0) throw new Error(`docs/suppliers.md has no "${HEADING}" section`);
  const lines = doc.slice(start).split('\n');
  const tableAt = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(tableAt)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  const [header, , ...body] = rows;
  const columns = header!.slice(3);
  if (columns.join(',') !== SUPPLIER_FAILURES.join(','))
    throw new Error(`the outcome table's columns are ${columns.join(', ')}, not ${SUPPLIER_FAILURES.join(', ')}`);
  const table = new Map<string, Record<SupplierFailure, Outcome>>();
  for (const [supplier, flow, call, ...cells] of body) {
    const key = `${supplier} ${flow} ${call!.replace(/`/g, '')}`;
    const outcomes = Object.fromEntries(
      cells.map((cell, i) => {
        const match = /^(\d{3})\s*(.*)$/.exec(cell);
        if (!match) throw new Error(`${key}: "${cell}" is not a status and a note`);
        return [SUPPLIER_FAILURES[i]!, { status: Number(match[1]), note: match[2]! }];
      }),
    ) as Record<SupplierFailure, Outcome>;
    table.set(key, outcomes);
  }
  return table;
}

/**
 * Ends every workflow still running in the stack's namespace (payments and refunds parked
 * for an operator, holds still retrying): the API's waits on them end with them, so no call
 * of theirs is left retrying once the stack's connection closes.
 */
export async function endRunningWorkflows(client: Client): Promise<void> {
  for await (const run of client.workflow.list({ query: 'ExecutionStatus="Running"' })) {
    await client.workflow
      .getHandle(run.workflowId, run.runId)
      .terminate('the test is over')
      .catch(() => undefined);
  }
}

/** The flows whose answer waits on a workflow for a while, and may be asked again with the same key. */
const WAITED_ON = ['pay', 'air_change_confirm', 'air_order_services'];

/**
 * The partner's answer to a flow with the call spoilt: a payment or change still under way
 * when the wait ends (a slow machine), where the table expects its outcome, is asked again
 * and answered where it stands.
 */
export async function answerTo(flow: string, act: () => Promise<Reply>, expected: number | undefined): Promise<Reply> {
  const reply = await act();
  return reply.status === 202 && expected !== 202 && WAITED_ON.includes(flow) ? act() : reply;
}

/** The table's rows of `supplier` that no case tries. */
export function untriedRows(table: Map<string, unknown>, supplier: string, cases: Array<{ flow: string; call: string }>): string[] {
  const tried = new Set(cases.map((c) => `${supplier} ${c.flow} ${c.call}`));
  return [...table.keys()].filter((k) => k.startsWith(`${supplier} `) && !tried.has(k));
}
