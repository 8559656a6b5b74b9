/**
 * How a simulated supplier plays the sandbox scenarios (X-Sandbox-Scenario) on a booking
 * step, counted per client reference: supplier_reject refuses (422), supplier_flaky answers
 * 503 a few times, supplier_slow takes its time; supplier_down answers 503 to the first
 * `downFailures` calls of a client reference (the request is never made), and
 * supplier_lost_response makes the booking but every answer to it, repeats included, is a
 * 504: only a status look-up tells.
 */
import type { Context } from 'hono';
import { isSimulatedScenario, SANDBOX_SCENARIO_HEADER, type SimulatedScenario } from '../../sandbox/scenarios';

/** The scenario a call to the simulator asks for: one the contract says the simulator plays, or none. */
export function scenarioOf(c: Context): SimulatedScenario | undefined {
  const value = c.req.header(SANDBOX_SCENARIO_HEADER);
  return isSimulatedScenario(value) ? value : undefined;
}

export interface UnreachableOptions {
  downFailures: number;
}

export interface ScenarioOptions extends UnreachableOptions {
  /** How long supplier_slow takes. */
  slowMs: number;
  /** supplier_flaky answers 503 this many times per client reference, then succeeds. */
  flakyFailures: number;
}

/** Calls per client reference, for the scenarios that fail the first few. */
export class Attempts {
  private readonly counts = new Map<string, number>();

  next(reference: string): number {
    const attempt = (this.counts.get(reference) ?? 0) + 1;
    this.counts.set(reference, attempt);
    return attempt;
  }
}

export const downAnswer = (c: Context, scenario: SimulatedScenario | undefined, attempt: number, opts: UnreachableOptions) =>
  scenario === 'supplier_down' && attempt <= opts.downFailures ? c.json({ error: `supplier unavailable (call ${attempt})` }, 503) : null;

/** The answer to a booking step that was made: lost under supplier_lost_response. */
export const madeAnswer = (c: Context, scenario: SimulatedScenario | undefined, made: () => Response) =>
  scenario === 'supplier_lost_response' ? c.json({ error: 'gateway timeout' }, 504) : made();

/**
 * A booking step under a scenario, before it is made: the refusal to answer (supplier_reject
 * with `rejection`, supplier_down, supplier_flaky), or null to go on.
 */
export function refusal(c: Context, scenario: SimulatedScenario | undefined, attempt: number, opts: ScenarioOptions, rejection: string): Response | null {
  if (scenario === 'supplier_reject') return c.json({ error: rejection }, 422);
  const down = downAnswer(c, scenario, attempt, opts);
  if (down) return down;
  if (scenario === 'supplier_flaky' && attempt <= opts.flakyFailures) return c.json({ error: `temporarily unavailable (attempt ${attempt})` }, 503);
  return null;
}

/** supplier_slow's wait. */
export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A status look-up by client reference under supplier_down: 503 for the first calls (counted with the step's), else null. */
export function lookupDownAnswer(c: Context, scenario: SimulatedScenario | undefined, reference: string, attempts: Attempts, opts: UnreachableOptions) {
  return scenario === 'supplier_down' ? downAnswer(c, scenario, attempts.next(reference), opts) : null;
}
