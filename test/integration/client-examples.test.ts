import { agencyClient, partnerClient } from '../../src/client';
import { listen, type RunningServer } from '../../src/platform/listen';
import { bookHotel } from '../../scripts/examples/book-hotel';
import { buySimCard } from '../../scripts/examples/buy-sim-card';
import { registerEndpoint, webhookReceiver } from '../../scripts/examples/receive-webhooks';
import type { PartnerEvent } from '../../src/client';
import { waitFor } from '../support/wait';
import { freePort } from '../support/global-setup';
import { adminClient } from '../support/clients';
import { ledgerDiscrepancies, useStack, type TestStack } from '../support/stack';

/**
 * The typed client (src/client, generated from the OpenAPI documents) and the two examples
 * a partner starts from, run over real HTTP against the engine: if the contract moves and
 * the examples no longer fit it, either this or the type check fails.
 */
let stack: TestStack;
useStack((s) => (stack = s));

let server: RunningServer;
beforeAll(async () => {
  server = await listen(stack.app.fetch, 0, '127.0.0.1');
});
afterAll(async () => {
  await server?.close();
});

describe('the typed client and its examples', () => {
  it('Interface A: buys a SIM card on credit and the wallet shows the debit', async () => {
    const creds = await adminClient(stack).createPartner({ credit_limit: '0', topup: '10000000' });
    const api = partnerClient(server.url, { apiKey: creds.api_key, apiSecret: creds.api_secret });
    const bought = await buySimCard(api, { search: 'turkey', idempotencyKey: 'example-sim-1' });
    expect(bought.payment).toMatchObject({ order_status: 'completed', order_id: bought.orderId });
    expect(Number(bought.wallet.balance)).toBeLessThan(10_000_000);
    // The same key again: the same payment, no second debit.
    const again = await api.POST('/partners/pay/', { body: { product_order_id: bought.orderId, idempotency_key: 'example-sim-1' } });
    expect(again.data?.data).toEqual(bought.payment);
    expect(await ledgerDiscrepancies(stack.db)).toEqual([]);
  });

  it('Interface B: books a refundable room (201) and cancels it', async () => {
    const creds = await adminClient(stack).createPartner({ credit_limit: '0', topup: '100000000' });
    const api = agencyClient(server.url, creds.agency_key);
    const trip = await bookHotel(api, { city: 'shiraz', idempotencyKey: 'example-stay-1', guestEmail: 'ops@acme.example' });
    expect(trip.bookedStatus).toBe(201);
    expect(trip.booking.status).toBe('active');
    expect(trip.cancellation.status).toBe('cancelled');
  });

  it('receives webhooks: the example registers an endpoint, verifies each delivery and acts on each event once', async () => {
    const creds = await adminClient(stack).createPartner({ credit_limit: '0', topup: '10000000' });
    const api = partnerClient(server.url, { apiKey: creds.api_key, apiSecret: creds.api_secret });
    const got: PartnerEvent[] = [];
    const port = await freePort();
    const endpoint = await registerEndpoint(api, `http://127.0.0.1:${port}/hooks`, ['order.processing', 'product_order.shipped']);
    const receiver = webhookReceiver(endpoint.secret, (e) => {
      got.push(e);
    });
    await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
    try {
      const bought = await buySimCard(api, { search: 'turkey', idempotencyKey: 'example-hooks-1' });
      await waitFor(() => got.length === 2, 'two events');
      expect(got.map((e) => [e.type, e.order_id])).toEqual([
        ['order.processing', bought.orderId],
        ['product_order.shipped', bought.orderId],
      ]);
      // A forged delivery is refused; a repeated one is acknowledged and not acted on again.
      const forged = await fetch(`http://127.0.0.1:${port}/hooks`, {
        method: 'POST',
        headers: { 'webhook-id': 'evt_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
        body: '{}',
      });
      expect(forged.status).toBe(400);
      const redeliver = await adminClient(stack).post(`/admin/events/${got[1]!.id}/redeliver`);
      expect(redeliver.status).toBe(200);
      const deliveries = async () => (await adminClient(stack).get(`/admin/partners/${creds.partner_id}/webhooks/deliveries`)).body.deliveries;
      await waitFor(async () => (await deliveries()).find((d: { event_id: number }) => d.event_id === got[1]!.id).attempts.length === 2, 'the redelivery');
      expect(got).toHaveLength(2);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('refuses what the contract refuses, typed: a wrong secret is a 401 in the interface shape', async () => {
    const creds = await adminClient(stack).createPartner({ credit_limit: '0', topup: '0' });
    const api = partnerClient(server.url, { apiKey: creds.api_key, apiSecret: 'wrong' });
    const answer = await api.GET('/partners/wallet/');
    expect(answer.response.status).toBe(401);
    expect(answer.error).toEqual({ ok: false, error: expect.any(String) });
  });
});
