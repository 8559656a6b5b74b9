import { call, newPartner } from '../support/clients';
import { startReceiver } from '../support/receiver';
import { type TestStack, useStack } from '../support/stack';
import { waitFor } from '../support/wait';

/**
 * Webhooks as production runs them (WEBHOOK_ALLOW_PRIVATE_URLS off): an endpoint whose
 * address is loopback is never connected to. Each attempt fails on the address, is recorded,
 * and the endpoint is disabled once the retries are spent (2 s here).
 */
let stack: TestStack;
useStack((s) => (stack = s), { webhookAllowPrivateUrls: false, webhookRetry: { giveUpAfterMs: 2000 } });

describe('webhooks to private addresses, production settings', () => {
  it('never connects to a loopback endpoint: each attempt is refused on the address, then the endpoint is disabled', async () => {
    const { api } = await newPartner(stack);
    const receiver = await startReceiver();
    try {
      // Registration takes the URL (its shape is fine); the address is checked where it is connected to.
      const made = await api.post('/api/partners/webhooks/', { url: receiver.url.replace('127.0.0.1', 'localhost') });
      expect(made.status).toBe(201);
      const order = await api.productOrder();
      expect((await api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'private-1' })).status).toBe(200);
      await waitFor(async () => (await api.get('/api/partners/webhooks/')).body.data.results[0]?.status === 'disabled', 'the endpoint disabled', 20_000);
      const endpoint = (await api.get('/api/partners/webhooks/')).body.data.results[0];
      expect(endpoint.disabled_reason).toMatch(
        /^delivery \d+ still failing after 2 s; the last attempt failed: DNS lookup 127\.0\.0\.1\(family:4, host:localhost\) is not allowed\. Because, It is private IP address\.$/,
      );
      expect(receiver.received).toEqual([]);
      // Counted as unreachable on the worker's /metrics (the admin port's, in one process).
      const metrics = await call(stack.admin, 'GET', '/metrics', {});
      expect(metrics.body).toMatch(/^webhook_attempts_total\{outcome="unreachable"\} [1-9]/m);
    } finally {
      await receiver.close();
    }
  });
});
