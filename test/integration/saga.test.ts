import crypto from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { NativeConnection, Worker } from '@temporalio/worker';
import { quietWorkerLogs } from '../support/stack';
import { localRunActivities, type sagaCancelled, type sagaFails, type sagaRunsLocally } from '../support/workflows/saga.workflows';

/**
 * The saga runner (workflows/saga.ts) on its own, in real workflows on the tests' Temporal:
 * undos run last first, each once, told why at the time they run; a step's undo registered
 * before it runs is run when the step itself throws; compensation survives the workflow's
 * cancellation; a local run of the first steps is taken as far as it got. The payment,
 * cancellations, flight changes and Interface B's workflows build on exactly this.
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
    activities: localRunActivities,
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

const runsLocally = (...args: Parameters<typeof sagaRunsLocally>) =>
  client.workflow.execute<typeof sagaRunsLocally>('sagaRunsLocally', { taskQueue, workflowId: `local-${crypto.randomUUID()}`, args });

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

  describe('with its first steps run locally', () => {
    it('takes what the local run finished, and runs the rest on its own', async () => {
      expect(await runsLocally({ done: ['held locally', 'debited locally'] })).toEqual({
        log: ['book (not local) on its own, tried: false'],
        results: ['held locally', 'debited locally', 'book on its own'],
      });
    });

    it('goes on from the step where the local run stopped, told what it met there', async () => {
      expect(await runsLocally({ done: ['held locally'], stopped: { message: 'timed out', nonRetryable: false } })).toEqual({
        log: ['debit (debitWallet) on its own, tried: true, stopped: timed out', 'book (not local) on its own, tried: false'],
        results: ['held locally', 'debit on its own', 'book on its own'],
      });
    });

    it("runs a step that stopped the local run with a final failure no further: that failure is the step's, and is compensated", async () => {
      expect(await runsLocally({ done: ['held locally'], stopped: { type: 'refused', message: 'no credit', nonRetryable: true } })).toEqual({
        log: ['undo hold (debit: no credit)', 'failed in debit'],
        results: ['held locally'],
      });
    });

    it('runs every step on its own from the first when the local run does not answer, each told it may have been tried', async () => {
      expect(await runsLocally(null)).toEqual({
        log: ['hold (holdRooms) on its own, tried: true', 'debit (debitWallet) on its own, tried: true', 'book (not local) on its own, tried: false'],
        results: ['hold on its own', 'debit on its own', 'book on its own'],
      });
    });

    it('undoes nothing once past the pivot', async () => {
      expect(await runsLocally({ done: ['held locally', 'debited locally'] }, 'book')).toEqual({
        log: ['book (not local) on its own, tried: false', 'failed in book'],
        results: ['held locally', 'debited locally'],
      });
    });

    it('undoes a step the local run finished when a later one fails', async () => {
      expect(await runsLocally({ done: ['held locally'] }, 'debit')).toEqual({
        log: ['debit (debitWallet) on its own, tried: false', 'undo hold (debit: debit refused)', 'failed in debit'],
        results: ['held locally'],
      });
    });
  });
});
