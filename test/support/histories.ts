import fs from 'node:fs';
import path from 'node:path';
import type { TestStack } from './stack';

export const HISTORIES_DIR = path.join(__dirname, '..', 'replay', 'histories');

/**
 * The payload key of the stacks that record histories (RECORD_HISTORIES=1), and of the replay
 * that decrypts them: a test key, committed on purpose. Histories recorded before payloads were
 * encrypted hold plain payloads, which the codec passes through.
 */
export const REPLAY_PAYLOAD_KEY = 'cmVwbGF5LXRlc3Qta2V5LW5vdC1hLXNlY3JldC0wMDE=';

/**
 * With RECORD_HISTORIES=1, saves a finished workflow's event history for the replay
 * tests; they then prove that today's workflow code still replays yesterday's runs.
 */
export async function recordHistory(stack: TestStack, workflowId: string, name: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const handle = stack.client.workflow.getHandle(workflowId);
  // An answer can come from the worker a moment before Temporal records the close (src/temporal/outcomes.ts).
  // The wait is cancelled, not left running, if the close does not come: a call running when the
  // stack closes its connection would be retried on the closed connection.
  const giveUp = new AbortController();
  const timer = setTimeout(() => giveUp.abort(), 10_000);
  await stack.client.withAbortSignal(giveUp.signal, () => handle.result()).catch(() => undefined);
  clearTimeout(timer);
  const history = await handle.fetchHistory();
  fs.mkdirSync(HISTORIES_DIR, { recursive: true });
  fs.writeFileSync(path.join(HISTORIES_DIR, `${name}.json`), JSON.stringify(history, null, 1));
}

/** The activity types a workflow scheduled through the server, in order (local activities are markers, not counted). */
export async function scheduledActivities(stack: Pick<TestStack, 'client'>, workflowId: string): Promise<string[]> {
  const { events } = await stack.client.workflow.getHandle(workflowId).fetchHistory();
  return events!.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType!.name!] : []));
}
