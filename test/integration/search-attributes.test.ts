import crypto from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { ensureSearchAttributes } from '../../src/temporal/search-attributes';
import { OrderId, OrderStatus, PartnerId, SEARCH_ATTRIBUTES, Service, Stage } from '../../workflows/search-attributes';

/**
 * On a Temporal cluster with SQL visibility (CI's cluster stage runs this file there), a
 * search attribute added to a namespace is listed at once but refused on a workflow start
 * until every service's namespace registry has refreshed. ensureSearchAttributes must return
 * only once a start carrying every attribute is accepted; the engine starts nothing before.
 */

let connection: Connection;
beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
});
afterAll(async () => {
  await connection.close();
});

async function freshNamespace(): Promise<string> {
  const namespace = `sa-${crypto.randomBytes(6).toString('hex')}`;
  await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  return namespace;
}

describe('ensureSearchAttributes', () => {
  it('returns only once a workflow start carrying every attribute is accepted on a fresh namespace', async () => {
    // Three namespaces in a row: the window the registry refresh leaves open is a second or two.
    for (let i = 0; i < 3; i++) {
      const namespace = await freshNamespace();
      await ensureSearchAttributes(connection, namespace, { timeoutMs: 30_000 });
      const client = new Client({ connection, namespace });
      const handle = await client.workflow.start('payOrder', {
        taskQueue: `nobody-polls-${namespace}`,
        workflowId: `probe-${i}`,
        typedSearchAttributes: [
          { key: PartnerId, value: 1 },
          { key: OrderId, value: 2 },
          { key: Service, value: 'product' },
          { key: OrderStatus, value: 'processing' },
          { key: Stage, value: 'debiting' },
        ],
      });
      await handle.terminate('probe');
      const listed = await connection.operatorService.listSearchAttributes({ namespace });
      expect(Object.keys(listed.customAttributes ?? {})).toEqual(expect.arrayContaining(SEARCH_ATTRIBUTES.map((k) => k.name)));
    }
  });

  it('is a no-op on a namespace that has them, and refuses one where an attribute has another type', async () => {
    const namespace = await freshNamespace();
    await ensureSearchAttributes(connection, namespace);
    await expect(ensureSearchAttributes(connection, namespace)).resolves.toBeUndefined();

    const clashing = await freshNamespace();
    await connection.operatorService.addSearchAttributes({
      namespace: clashing,
      searchAttributes: { OrderId: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD },
    });
    await expect(ensureSearchAttributes(connection, clashing)).rejects.toThrow(
      /OrderId is registered in namespace .* as INDEXED_VALUE_TYPE_KEYWORD, the engine needs INT/,
    );
  });
});
