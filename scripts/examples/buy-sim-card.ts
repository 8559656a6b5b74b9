/**
 * Interface A with the typed client: buy a SIM card on credit (the README's
 * walk-through). Run against `npm start`:
 *
 *   API_KEY=… API_SECRET=… node --import tsx scripts/examples/buy-sim-card.ts [http://127.0.0.1:8080]
 *
 * It imports only the client (src/client), as a partner's code would. `npm test` runs it
 * (test/integration/client-examples.test.ts), so it keeps working as the contract moves.
 */
import { partnerClient, type PartnerClient } from '../../src/client';

/** The answer's data, or an error naming the call and what the engine said. */
function dataOf<T extends { data: unknown }>(what: string, answer: { data?: T; error?: unknown; response: Response }): T['data'] {
  if (!answer.data) throw new Error(`${what}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  return answer.data.data;
}

export async function buySimCard(api: PartnerClient, opts: { search: string; idempotencyKey: string }) {
  const page = dataOf('list products', await api.GET('/products/products/', { params: { query: { search: opts.search } } }));
  const sim = page.results.find((p) => p.category.slug === 'sim' && p.in_stock);
  if (!sim) throw new Error(`no SIM card in stock matches "${opts.search}"`);
  const plan = sim.variants[0]; // the cheapest data plan, when the card has plans

  dataOf('add to basket', await api.POST('/products/basket/items/', { body: { product: sim.id, quantity: 1, ...(plan ? { variant: plan.id } : {}) } }));
  const order = dataOf('checkout', await api.POST('/products/checkout/', { body: { payment_method: 'PARTNER_CREDIT' } }));
  // 200 completed, or 202 processing while the supplier is slow (the order lists tell the end).
  const paid = dataOf('pay', await api.POST('/partners/pay/', { body: { product_order_id: order.id, idempotency_key: opts.idempotencyKey } }));
  const wallet = dataOf('wallet', await api.GET('/partners/wallet/'));
  return { product: sim.name, plan: plan?.name ?? null, orderId: order.id, payment: paid, wallet };
}

if (require.main === module) {
  const baseUrl = process.argv[2] ?? 'http://127.0.0.1:8080';
  const api = partnerClient(baseUrl, { apiKey: process.env.API_KEY ?? '', apiSecret: process.env.API_SECRET ?? '' });
  buySimCard(api, { search: process.env.SEARCH ?? 'turkey', idempotencyKey: `example-${Date.now()}` })
    .then((r) => console.log(JSON.stringify(r, null, 2)))
    .catch((err: Error) => {
      console.error(err.message);
      process.exit(1);
    });
}
