import crypto from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { awaitWorkflow } from '../../src/temporal/workflows';
import { hostPort, startProxy } from '../support/proxy';

/**
 * A wait for a workflow's result that gives up (the request answers "under way") leaves no
 * call to Temporal behind it: the history long-poll it started is cancelled. A call left
 * running when its connection closes would go on until the link under it breaks; the SDK
 * then retries it on a timer, on the closed connection, and the timer throws "Channel has
 * been shut down" into whatever runs in the process at that moment.
 */

/** A workflow no worker ever runs (its task queue has none): its result never comes. */
const startUnserved = (client: Client) =>
  client.workflow.start('unserved', {
    taskQueue: `nobody-${crypto.randomBytes(4).toString('hex')}`,
    workflowId: `unserved-${crypto.randomBytes(6).toString('hex')}`,
    args: [],
    workflowExecutionTimeout: '1 minute',
  });

/** The process's uncaught errors while `during` runs and for `settleMs` after it. */
async function uncaughtWhile(during: () => Promise<void>, settleMs: number): Promise<unknown[]> {
  const errors: unknown[] = [];
  const onError = (err: unknown) => void errors.push(err);
  process.on('uncaughtException', onError);
  try {
    await during();
    await new Promise((resolve) => setTimeout(resolve, settleMs));
  } finally {
    process.off('uncaughtException', onError);
  }
  return errors;
}

describe('a wait for a workflow that gives up', () => {
  it('leaves no call running: its connection closes, the link breaks, and nothing is retried on the closed connection', async () => {
    // Through a proxy, so that the link under the closed connection can be broken as a restart of Temporal would.
    const proxy = await startProxy(hostPort(process.env.TEST_TEMPORAL_ADDRESS!));
    try {
      const connection = await Connection.connect({ address: proxy.address });
      const client = new Client({ connection, namespace: 'default' });
      const handle = await startUnserved(client);
      const errors = await uncaughtWhile(async () => {
        expect(await awaitWorkflow(handle, 300, () => null)).toBeNull();
        await connection.close();
        proxy.cut();
      }, 2000);
      expect(errors).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});
