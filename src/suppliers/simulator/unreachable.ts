import type { Context } from 'hono';

/**
 * The two ways the simulated suppliers leave a booking step's outcome unknown:
 * supplier_down answers 503 to the first `downFailures` calls of a client reference (the
 * request is never made), supplier_lost_response makes the booking but every answer to it,
 * repeats included, is a 504: only a status look-up tells.
 */
export interface UnreachableOptions {
  downFailures: number;
}

export const downAnswer = (c: Context, scenario: string | undefined, attempt: number, opts: UnreachableOptions) =>
  scenario === 'supplier_down' && attempt <= opts.downFailures ? c.json({ error: `supplier unavailable (call ${attempt})` }, 503) : null;

/** The answer to a booking step that was made: lost under supplier_lost_response. */
export const madeAnswer = (c: Context, scenario: string | undefined, made: () => Response) =>
  scenario === 'supplier_lost_response' ? c.json({ error: 'gateway timeout' }, 504) : made();
