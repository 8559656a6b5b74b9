/**
 * The simulator's tour operators, villa hosts and visa agency: each confirms (or refuses)
 * a request identified by the agent's client_reference, and cancels or amends it later.
 * Sandbox scenarios (X-Sandbox-Scenario): supplier_reject, supplier_flaky, supplier_slow,
 * supplier_down (503 to requests and look-ups for a while) and supplier_lost_response
 * (made, but every answer to the request is a 504: only a look-up tells) on create, and the
 * same on amend (its look-up is the read by the supplier's reference); cancel_reject on cancel.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { bodyOf, jsonBody } from './requests';
import { Attempts, lookupDownAnswer, madeAnswer, pause, refusal, scenarioOf, type ScenarioOptions } from './scenarios';

interface Confirmation {
  reference: string;
  client_reference: string;
  status: 'confirmed' | 'cancelled';
  request: Record<string, unknown>;
  amendments: Record<string, unknown>[];
  /** What the supplier holds now: the request with every amendment applied, in order. */
  current: Record<string, unknown>;
  created_at: string;
}

const CreateBody = z.object({ client_reference: z.string().min(1).max(300) }).passthrough();

/** One confirming supplier under `/<path>`: POST creates, GET /:ref reads, POST /:ref/amend changes, POST /:ref/cancel cancels. */
function confirmingSupplier(path: string, prefix: string, opts: ScenarioOptions) {
  const byClientRef = new Map<string, Confirmation>();
  const byRef = new Map<string, Confirmation>();
  const attempts = new Attempts();
  let sequence = 0;
  const app = new Hono();

  app.post(`/${path}`, async (c) => {
    const parsed = CreateBody.safeParse(await jsonBody(c));
    if (!parsed.success) return c.json({ error: `invalid request: ${parsed.error.issues[0]?.message}` }, 400);
    const ref = parsed.data.client_reference;
    const scenario = scenarioOf(c);
    const known = byClientRef.get(ref);
    if (known) return madeAnswer(c, scenario, () => c.json(known, 200));
    const refused = refusal(c, scenario, attempts.next(ref), opts, `the ${path.split('/')[0]} supplier refused the request`);
    if (refused) return refused;
    if (scenario === 'supplier_slow') await pause(opts.slowMs);
    const raced = byClientRef.get(ref);
    if (raced) return c.json(raced, 200);
    sequence += 1;
    const created: Confirmation = {
      reference: `${prefix}-${String(sequence).padStart(6, '0')}`,
      client_reference: ref,
      status: 'confirmed',
      request: parsed.data,
      amendments: [],
      current: parsed.data,
      created_at: new Date().toISOString(),
    };
    byClientRef.set(ref, created);
    byRef.set(created.reference, created);
    // Under supplier_lost_response the booking is made, but the answer never reaches the agent.
    return madeAnswer(c, scenario, () => c.json(created, 201));
  });

  app.get(`/${path}`, (c) => {
    const ref = c.req.query('client_reference') ?? '';
    const down = lookupDownAnswer(c, scenarioOf(c), ref, attempts, opts);
    if (down) return down;
    const found = byClientRef.get(ref);
    return found ? c.json(found) : c.json({ error: 'no such request' }, 404);
  });

  // Changes are counted apart from the request they change, per reference and scenario: a
  // scenario's failures are its own, not spent by changes made under another one before it.
  const amendKey = (reference: string, scenario: string | undefined) => `amend:${reference}:${scenario ?? ''}`;

  // A look-up by the supplier's own reference: what it holds now, amendments included.
  app.get(`/${path}/:reference`, (c) => {
    const reference = c.req.param('reference');
    const scenario = scenarioOf(c);
    const down = lookupDownAnswer(c, scenario, amendKey(reference, scenario), attempts, opts);
    if (down) return down;
    const found = byRef.get(reference);
    return found ? c.json(found) : c.json({ error: 'unknown reference' }, 404);
  });

  app.post(`/${path}/:reference/amend`, async (c) => {
    const reference = c.req.param('reference');
    const scenario = scenarioOf(c);
    const refused = refusal(c, scenario, attempts.next(amendKey(reference, scenario)), opts, `the ${path.split('/')[0]} supplier refused the change`);
    if (refused) return refused;
    if (scenario === 'supplier_slow') await pause(opts.slowMs);
    const found = byRef.get(reference);
    if (!found) return c.json({ error: 'unknown reference' }, 404);
    if (found.status !== 'confirmed') return c.json({ error: `it is ${found.status}` }, 409);
    const change = await bodyOf(c, z.record(z.string(), z.unknown()), 'change');
    if (change instanceof Response) return change;
    found.amendments.push(change);
    found.current = { ...found.current, ...change };
    // Under supplier_lost_response the change is made, but the answer never reaches the agent.
    return madeAnswer(c, scenario, () => c.json(found));
  });

  app.post(`/${path}/:reference/cancel`, (c) => {
    const found = byRef.get(c.req.param('reference'));
    if (!found) return c.json({ error: 'unknown reference' }, 404);
    if (scenarioOf(c) === 'cancel_reject') return c.json({ error: 'the supplier refused the cancellation' }, 422);
    found.status = 'cancelled';
    return c.json(found);
  });
  return app;
}

export function confirmationRoutes(opts: ScenarioOptions) {
  const app = new Hono();
  app.route('/', confirmingSupplier('tours/bookings', 'TOUR', opts));
  app.route('/', confirmingSupplier('residence/bookings', 'HOST', opts));
  app.route('/', confirmingSupplier('visa/applications', 'VSA', opts));
  return app;
}
