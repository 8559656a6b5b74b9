import crypto from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { NativeConnection, Worker } from '@temporalio/worker';
import { quietWorkerLogs } from '../support/stack';
import type { sagaCancelled, sagaFails } from '../support/workflows/saga.workflows';

/**
 * The Saga helper (workflows/saga.ts) on its own, in real workflows on the tests' Temporal:
 * undos run last first, each once, told why at the time they run; a step's undo registered
 * before it runs is run when the step itself throws; compensation survives the workflow's
 * cancellation. The payment and Interface B's workflows build on exactly this.
 */

let connection: Connection;
let workerConnection: NativeConnection | undefined;
let client: Client;
let worker: Worker;
let running: Promise<void>;
const taskQueue = `saga-${crypto.randomBytes(6).toString('hex')}`;

beforeAll(async () => {
  const address = process.env.TEST_TEMPORAL_ADDRESS;
  if (!address) throw new Error('the jest global setup did not run (TEST_TEMPORAL_ADDRESS missing)');
  quietWorkerLogs();
  connection = await Connection.connect({ address });
  await connection.workflowService.registerNamespace({ namespace: taskQueue, workflowExecutionRetentionPeriod: msToTs('1 day') });
  client = new Client({ connection, namespace: taskQueue });
  workerConnection = await NativeConnection.connect({ address });
  worker = await Worker.create({
    connection: workerConnection,
    namespace: taskQueue,
    taskQueue,
    workflowsPath: require.resolve('../support/workflows/saga.workflows'),
  });
  running = worker.run();
}, 60_000);

afterAll(async () => {
  // Everything this file started stops with it: the worker, then both connections.
  worker?.shutdown();
  await running;
  await workerConnection?.close();
  await connection?.close();
});

const fails = (failAt: Parameters<typeof sagaFails>[0]) =>
  client.workflow.execute<typeof sagaFails>('sagaFails', { taskQueue, workflowId: `fails-${failAt}-${crypto.randomUUID()}`, args: [failAt] });

describe('Saga', () => {
  it('runs every step and no undo when nothing fails', async () => {
    expect(await fails('none')).toEqual({ log: ['did hold', 'did debit', 'did book'] });
  });

  it('undoes what was done, last first, each once, told why when it runs, and names the step that failed', async () => {
    expect(await fails('book')).toEqual({
      failedStep: 'book',
      log: [
        'did hold',
        'did debit',
        // The failed step's own undo runs too: it may have committed before its answer was lost.
        'try',
        'undo book (book failed)',
        'try',
        'undo debit of 5 (book failed)',
        'try',
        'undo hold (book failed)',
        'book refused',
      ],
    });
  });

  it('undoes only what was registered before the failure: an undo registered after a step is not run when that step fails', async () => {
    expect(await fails('debit')).toEqual({
      failedStep: 'debit',
      log: ['did hold', 'try', 'undo hold (debit failed)', 'debit refused'],
    });
  });

  it('compensates when the workflow is cancelled, its undos running to the end (timers included) in a non-cancellable scope', async () => {
    const handle = await client.workflow.start<typeof sagaCancelled>('sagaCancelled', { taskQueue, workflowId: `cancelled-${crypto.randomUUID()}` });
    // Wait until the last step is under way (its day-long timer started), then cancel.
    for (let i = 0; i < 100; i++) {
      const { events } = await handle.fetchHistory();
      if (events?.some((e) => e.timerStartedEventAttributes)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await handle.cancel();
    expect(await handle.result()).toEqual(['did hold', 'cancelled in book; scope cancelled: true', 'undo book (cancelled)', 'undo hold (cancelled)']);
  });
});
