import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { confirmChange, type ChangeAnswer } from '../../domain/flights/change-service';
import { requestChange, type PricedChange } from '../../domain/flights/changes';
import * as flights from '../../domain/flights/service';
import { formatDecimal } from '../../domain/money/money';
import { workflowDeps, type ApiDeps } from '../deps';
import { bodyId, calendarDate, opaque } from '../vocabulary';
import { sandboxScenario, scenarioOf } from '../sandbox-scenario';
import { Iata, Legs, renderLeg } from './flights.routes';
import { doneOrUnderWay, ok, partnerRouter, type PartnerEnv } from './router';
import { commonErrors, Decimal, errorResponse, json, jsonBody, partnerOperations } from './schemas';

const { post } = partnerOperations(['Flights']);

const ChangeRequestBody = z
  .object({
    order_id: bodyId(),
    remove: z
      .array(z.number().int().min(0).max(9))
      .max(10)
      .openapi({ description: "Indexes of the order's legs to replace (0: the outbound leg)", example: [0] }),
    add: z
      .array(
        z.object({
          origin: Iata,
          destination: Iata,
          departure_date: calendarDate('travel'),
          cabin_type: z.enum(flights.CABINS, { error: `must be one of ${flights.CABINS.join(', ')}` }),
        }),
      )
      .max(10)
      .openapi({ description: 'The legs to fly instead' }),
  })
  .refine((b) => b.remove.length + b.add.length > 0, { message: 'remove or add at least one leg', path: ['add'] })
  .openapi('FlightChangeRequest');

const ChangeOffer = z.object({
  change_offer_id: z.string().openapi({ description: 'Sealed: pass it as it is to air_change_confirm before expires_at' }),
  fare_difference: Decimal.openapi({ description: "The new fare less the old, at today's rate (negative: the new fare is cheaper)" }),
  penalty: Decimal.openapi({ description: "The airline's change penalty" }),
  change_fee: Decimal.openapi({ description: 'Our fee for the change' }),
  total: Decimal.openapi({ description: 'What the change costs: debited from the wallet when positive, credited to it when negative' }),
  currency: z.string(),
  expires_at: z.string(),
  remove: z.array(z.number().int()),
  add: Legs,
});

const ChangeConfirmBody = z
  .object({
    order_id: bodyId(),
    change_offer_id: opaque(4000),
    idempotency_key: opaque(128).openapi({
      description: 'Unique per change: a retry with the same key joins the same change, never charging twice',
      example: 'change-7f3c2a',
    }),
  })
  .openapi('FlightChangeConfirm');

export const FlightChange = z
  .object({
    change_id: z.number().int(),
    order_id: z.number().int(),
    status: z.enum(['confirming', 'confirmed', 'failed']),
    total: Decimal.openapi({ description: 'Debited when positive, credited when negative' }),
    order_total: Decimal.optional().openapi({ description: "The order's price after the change" }),
    currency: z.string(),
  })
  .openapi('FlightChange');

const routes = {
  request: createRoute({
    ...post('/flights/air_change_request/', "The airline's offers to change a ticketed flight (extension)"),
    request: { body: jsonBody(ChangeRequestBody), headers: sandboxScenario('flightChangeRequest') },
    responses: {
      200: json(z.object({ order_id: z.number().int(), request_id: z.string(), offers: z.array(ChangeOffer) }), 'Offers, priced in the wallet currency'),
      ...commonErrors,
    },
  }),
  confirm: createRoute({
    ...post('/flights/air_change_confirm/', 'Change a ticketed flight: pay the difference (or get it back), then the airline reissues (extension)'),
    request: { body: jsonBody(ChangeConfirmBody), headers: sandboxScenario('flightChange') },
    responses: {
      200: json(FlightChange, 'Changed: the order has its new legs and tickets'),
      202: json(FlightChange, 'Still changing with the airline'),
      ...commonErrors,
      409: errorResponse('The idempotency_key was used for another change, or the order has a change under way'),
      502: errorResponse('The airline did not make the change; any debit was credited back'),
    },
  }),
};

const renderOffer = (o: PricedChange): z.infer<typeof ChangeOffer> => ({
  change_offer_id: o.changeOfferId,
  fare_difference: formatDecimal(o.fareDifferenceMinor, o.currency),
  penalty: formatDecimal(o.penaltyMinor, o.currency),
  change_fee: formatDecimal(o.feeMinor, o.currency),
  total: formatDecimal(o.totalMinor, o.currency),
  currency: o.currency,
  expires_at: o.expiresAt,
  remove: o.remove,
  add: o.add.map(renderLeg),
});

export function flightChangeRoutes(deps: ApiDeps) {
  const changeDeps = () => ({
    ...workflowDeps(deps),
    afterSaleOf: deps.flightAfterSaleOf,
    supplierOf: deps.flightSupplierOf,
    pricing: deps.pricing,
    codes: deps.pricing.codes,
  });
  return partnerRouter()
    .openapi(routes.request, async (c) => {
      const body = c.req.valid('json');
      const asked = await requestChange(
        changeDeps(),
        c.get('partner').id,
        { order_id: body.order_id, remove: body.remove, add: body.add.map(({ cabin_type, ...l }) => ({ ...l, cabin: cabin_type })) },
        new Date(),
        scenarioOf(deps, c.req.valid('header')),
      );
      return ok(c, { order_id: asked.orderId, request_id: asked.requestId, offers: asked.offers.map(renderOffer) });
    })
    .openapi(routes.confirm, async (c) => {
      const out = await confirmChange(changeDeps(), c.get('partner').id, c.req.valid('json'), new Date(), scenarioOf(deps, c.req.valid('header')));
      return changeAnswer(c, out);
    });
}

const renderChange = (change: ChangeAnswer): z.infer<typeof FlightChange> => ({
  change_id: change.changeId,
  order_id: change.orderId,
  status: change.status,
  total: formatDecimal(change.totalMinor, change.currency),
  ...(change.orderTotalMinor === null ? {} : { order_total: formatDecimal(change.orderTotalMinor, change.currency) }),
  currency: change.currency,
});

/** A change as the partner hears of it: 200 once the supplier confirmed it, 202 while it is still under way. */
export function changeAnswer(c: Context<PartnerEnv>, out: { done: boolean; change: ChangeAnswer }) {
  const data = renderChange(out.change);
  return doneOrUnderWay(c, out.done ? { done: true as const, data } : { done: false as const, data });
}
