import { createRoute, z } from '@hono/zod-openapi';
import { decideScheduleChange } from '../../domain/flights/schedule-change-runs';
import { formatDecimal } from '../../domain/money/money';
import { workflowDeps, type ApiDeps } from '../deps';
import { sandboxScenario, scenarioOf } from '../sandbox-scenario';
import { bodyId } from '../vocabulary';
import { partnerRouter } from './router';
import { commonErrors, Decimal, json, jsonBody, partnerOperations } from './schemas';

const DecisionBody = z
  .object({
    order_id: bodyId(),
    decision: z.enum(['accept', 'cancel'], { error: 'must be accept or cancel' }).openapi({
      description: "accept: fly the airline's new schedule; cancel: the order is cancelled and refunded in full (the airline's terms after its change)",
    }),
  })
  .openapi('ScheduleChangeDecision');

const Decided = z
  .object({
    order_id: z.number().int(),
    change_id: z.string().openapi({ description: "The airline's id of the change" }),
    decision: z.enum(['accept', 'cancel']),
    status: z.enum(['accepted', 'cancelled', 'accepting', 'cancelling']),
    refund_amount: Decimal.optional().openapi({ description: 'What came back to the wallet (cancelled)' }),
    currency: z.string().optional(),
    ledger_id: z.number().int().nullable().optional(),
    schedule_change_id: z.string().openapi({ description: 'The workflow that applies the decision (Temporal Web)' }),
  })
  .openapi('ScheduleChangeDecided');

const { post } = partnerOperations(['Flights']);
const decisionScenario = sandboxScenario('scheduleChangeDecision');

const routes = {
  decide: createRoute({
    ...post('/flights/air_schedule_change/', "Decide on the airline's schedule change: accept it, or cancel with a full refund (extension)"),
    request: { body: jsonBody(DecisionBody), headers: decisionScenario },
    responses: {
      200: json(Decided, 'Applied: the order has its new legs (accepted), or is refunded (cancelled)'),
      202: json(Decided, 'Decided; still being applied with the airline'),
      ...commonErrors,
    },
  }),
};

type DecidedData = z.infer<typeof Decided>;

/** The decision's answer: applied (200), or still being applied with the airline (202). */
function renderDecided(out: Awaited<ReturnType<typeof decideScheduleChange>>, decision: 'accept' | 'cancel'): { done: boolean; data: DecidedData } {
  const head = { order_id: out.row.orderId, change_id: out.row.changeId, decision, schedule_change_id: out.workflowId };
  const { result } = out;
  if (!result) return { done: false, data: { ...head, status: decision === 'accept' ? 'accepting' : 'cancelling' } };
  const refund = result.refund;
  return {
    done: true,
    data: {
      ...head,
      status: result.status === 'cancelled' ? 'cancelled' : 'accepted',
      ...(refund ? { refund_amount: formatDecimal(refund.refundMinor, refund.currency), currency: refund.currency, ledger_id: refund.ledgerId } : {}),
    },
  };
}

/** POST /api/flights/air_schedule_change/ (docs/decisions/schedule-changes.md). */
export function scheduleChangeRoutes(deps: ApiDeps) {
  return partnerRouter().openapi(routes.decide, async (c) => {
    const partner = c.get('partner');
    const body = c.req.valid('json');
    const scenario = scenarioOf(deps, c.req.valid('header'));
    const out = await decideScheduleChange(workflowDeps(deps), partner.id, { ...body, actor: partner.principal.actor, ...(scenario ? { scenario } : {}) });
    const { done, data } = renderDecided(out, body.decision);
    return done ? c.json({ ok: true as const, data }, 200) : c.json({ ok: true as const, data }, 202);
  });
}
