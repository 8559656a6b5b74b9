import { Hono } from 'hono';
import { z } from 'zod';
import { listen, type RunningServer } from '../../platform/listen';
import { airRoutes } from './air/routes';
import { confirmationRoutes } from './confirmations';
import { hotelRoutes } from './hotels/routes';
import { DOWN_FAILURES, FLAKY_FAILURES } from '../../sandbox/scenarios';
import { jsonBody } from './requests';
import { Attempts, lookupDownAnswer, madeAnswer, pause, refusal, scenarioOf } from './scenarios';
import { searchGate, type SearchGateOptions } from './search-gate';

const FulfilmentBody = z.object({
  client_reference: z.string().min(1).max(300),
  order_id: z.number().int(),
  items: z.array(z.object({ sku: z.string(), quantity: z.number().int().positive() })).min(1),
  delivery: z.unknown().optional(),
});

interface StoredFulfilment {
  fulfilment_id: string;
  status: 'accepted';
  client_reference: string;
  order_id: number;
  items: Array<{ sku: string; quantity: number }>;
  created_at: string;
}

export interface SimulatorOptions extends SearchGateOptions {
  /** How long supplier_slow takes; set above the engine's PAY_WAIT_MS. */
  slowMs: number;
  /** Hotel holds with guest names expire after this long (default 15 minutes). */
  holdTtlMs?: number;
  /** Hotel holds without guest names (prebooks) expire after this long (default 5 minutes). */
  prebookTtlMs?: number;
  /** Hotel rate keys are honoured this long after the search (default 30 minutes). */
  rateKeyTtlMs?: number;
  /** An air booking must be ticketed within this long (default 2 hours; never later than 3 h before departure). */
  ticketTimeLimitMs?: number;
  /** An air change offer, and the change made from it, can be taken up this long (default 30 minutes). */
  changeOfferTtlMs?: number;
}

/**
 * The supplier simulator: an HTTP service with deterministic behaviour. A repeated
 * client_reference is the same request (it answers the first result and books nothing
 * new), the way real suppliers de-duplicate on the agent's reference.
 */
export function createSimulatorApp(opts: SimulatorOptions) {
  const fulfilments = new Map<string, StoredFulfilment>();
  const attempts = new Attempts();
  const scenarioOptions = { slowMs: opts.slowMs, flakyFailures: FLAKY_FAILURES, downFailures: DOWN_FAILURES };
  let sequence = 0;

  const app = new Hono();
  app.get('/healthz', (c) => c.json({ ok: true }));

  const gate = searchGate(opts);
  app.get('/stats', (c) => c.json(gate.stats()));
  app.use('/hotels/availability', gate.middleware('hotels'));
  app.use('/air/search', gate.middleware('air'));

  app.post('/products/fulfilments', async (c) => {
    const parsed = FulfilmentBody.safeParse(await jsonBody(c));
    if (!parsed.success) return c.json({ error: `invalid fulfilment request: ${parsed.error.issues[0]?.message}` }, 400);
    const req = parsed.data;
    const scenario = scenarioOf(c);
    const known = fulfilments.get(req.client_reference);
    if (known) return madeAnswer(c, scenario, () => c.json(known, 200));

    const refused = refusal(
      c,
      scenario,
      attempts.next(req.client_reference),
      scenarioOptions,
      'fulfilment rejected by the supplier: item not deliverable to this destination',
    );
    if (refused) return refused;
    if (scenario === 'supplier_slow') await pause(opts.slowMs);

    // A slow duplicate may have finished meanwhile: still one fulfilment per reference.
    const raced = fulfilments.get(req.client_reference);
    if (raced) return c.json(raced, 200);
    sequence += 1;
    const created: StoredFulfilment = {
      fulfilment_id: `FUL-${String(sequence).padStart(6, '0')}`,
      status: 'accepted',
      client_reference: req.client_reference,
      order_id: req.order_id,
      items: req.items,
      created_at: new Date().toISOString(),
    };
    fulfilments.set(req.client_reference, created);
    // Under supplier_lost_response the shipment is made, but the answer never reaches the agent.
    return madeAnswer(c, scenario, () => c.json(created, 201));
  });

  app.get('/products/fulfilments', (c) => {
    const ref = c.req.query('client_reference');
    const down = ref ? lookupDownAnswer(c, scenarioOf(c), ref, attempts, scenarioOptions) : null;
    if (down) return down;
    const found = ref ? fulfilments.get(ref) : undefined;
    return found ? c.json(found) : c.json({ error: 'no fulfilment with this client_reference' }, 404);
  });

  app.route('/', hotelRoutes({ ...opts, ...scenarioOptions }));
  app.route('/', airRoutes({ ...opts, ...scenarioOptions }));
  app.route('/', confirmationRoutes(scenarioOptions));

  return app;
}

export function startSimulator(opts: SimulatorOptions & { port: number }): Promise<RunningServer> {
  return listen(createSimulatorApp(opts).fetch, opts.port, '127.0.0.1');
}
