import { z } from '@hono/zod-openapi';
import { walletView } from '../../domain/money/credit-alerts';
import { formatDecimal } from '../../domain/money/money';
import { isoOrNull, travelOrderView } from '../../domain/order-view';
import type { OrderRow } from '../../domain/orders';
import type { MoneyBackOutcome } from '../../domain/refund-terms';
import type { WalletRow } from '../../domain/money/wallet';
import { idString } from '../vocabulary';
import { commonResponses, operationHeads, type ResponseObject, type Security } from '../openapi-document';

/** Interface A's security requirement: the key pair, or the agency console's session, on every route but the published contract. */
export const secured: Security = [{ ApiKey: [], ApiSecret: [] }, { ConsoleSession: [] }];
/** The heads of Interface A's routes under a tag: `partnerOperations(['Tours']).get(path, summary)`. */
export const partnerOperations = operationHeads(secured);

/** Interface A's success envelope around `data`. */
export const envelope = <T extends z.ZodTypeAny>(data: T) => z.object({ ok: z.literal(true), data });

export const ErrorBody = z
  .object({ ok: z.literal(false), error: z.string().openapi({ example: 'order_id: order 42 is not one of your orders' }) })
  .openapi('Error');

export const errorResponse = (description: string) => ({ content: { 'application/json': { schema: ErrorBody } }, description });

/** The error responses every authenticated route can give. */
export const commonErrors = {
  400: errorResponse('Validation error: the message names the field'),
  401: errorResponse('Missing or invalid X-API-KEY / X-API-SECRET'),
  404: errorResponse('Not found'),
} as const;

/**
 * What Interface A's shared middleware and error handler answer on any route (src/http/partner/app.ts),
 * added to every operation of the published document that does not state the status itself.
 */
const errorRef = (description: string): ResponseObject => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});
export const partnerCommonResponses = commonResponses({
  error: errorRef,
  invalid: errorRef,
  invalidRequest: {
    status: 400,
    description:
      'Invalid request: a field failed validation, or the path, query or body holds text the database cannot store (NUL, unpaired UTF-16 surrogates); the message names it',
  },
  unauthorized: 'Missing or invalid X-API-KEY / X-API-SECRET',
  rateLimit: "the partner's rate limit on Interface A",
});

export const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  content: { 'application/json': { schema: envelope(schema) } },
  description,
});

export { jsonBody } from '../openapi-document';

export const Id = (name: string) =>
  z.object({
    id: idString().openapi({ param: { name, in: 'path' }, example: '1' }),
  });

export const Decimal = z.string().openapi({ example: '1250000.00', description: 'Decimal amount with two decimals' });

export const Wallet = z
  .object({
    balance: Decimal,
    credit_limit: Decimal,
    available: Decimal.openapi({ description: 'balance + credit_limit' }),
    currency: z.string().openapi({ example: 'IRT' }),
    updated_at: z.string().openapi({ example: '2026-11-22T08:00:00.000Z' }),
  })
  .openapi('Wallet');

/** The wallet as Interface A answers it (and the operator API, src/http/admin, in the same shape). */
export const renderWallet = (w: WalletRow): z.infer<typeof Wallet> => walletView(w);

/** A travel order as every service answers it (flight, hotel, tour, residence, visa). */
/** Who did something (an extension of the specification's shapes). */
export const Actor = z
  .object({
    type: z.enum(['user', 'connection', 'operator', 'engine']),
    id: z.number().int().nullable(),
    name: z.string(),
  })
  .nullable()
  .openapi('Actor', { description: "Who did it: one of the agency's users or API connections, an operator, or the engine itself; null where not recorded" });

/** One flight of a leg, as every flight answer shows it. */
export const Segment = z.object({
  flight_number: z.string(),
  airline: z.string(),
  origin: z.string(),
  destination: z.string(),
  departure: z.string(),
  arrival: z.string(),
  cabin: z.string(),
  booking_class: z.string(),
});

const ScheduleLegs = z.array(
  z.object({
    segments: z.array(Segment),
  }),
);

/** An airline's change to a flight order, as the order shows it. */
export const ScheduleChange = z
  .object({
    change_id: z.string().openapi({ description: "The airline's id of the change" }),
    status: z.enum(['pending', 'accepted', 'cancelled', 'changed']),
    removed: ScheduleLegs.openapi({ description: 'The legs the airline took away' }),
    added: ScheduleLegs.openapi({ description: 'The legs it put instead' }),
    decide_by: z.string().openapi({ description: 'Until when the partner may decide (air_schedule_change)' }),
    default_decision: z.enum(['accept', 'cancel']).openapi({ description: 'What the engine does at decide_by without a decision' }),
    reminded_at: z.string().nullable(),
    resolved_by: z.enum(['partner', 'default', 'change']).nullable(),
    resolved_at: z.string().nullable(),
  })
  .openapi('ScheduleChange');

export const TravelOrder = z
  .object({
    id: z.number().int().openapi({ description: 'The order_id to pay' }),
    service: z.enum(['product', 'hotel', 'flight', 'tour', 'residence', 'visa']),
    status: z.string().openapi({ example: 'pending' }),
    total_price: Decimal,
    currency: z.string(),
    payment_method: z.enum(['PARTNER_CREDIT', 'GATEWAY']),
    supplier_ref: z.string().nullable(),
    service_status: z.string().nullable().openapi({ description: "The service's own progress where it has one (a visa: under_review, approved, rejected)" }),
    schedule_change: ScheduleChange.optional().openapi({
      description:
        "A flight's latest airline schedule change (extension; absent when the airline changed nothing): decide with air_schedule_change before decide_by",
    }),
    created_at: z.string(),
    updated_at: z.string(),
    completed_at: z.string().nullable(),
    created_by: Actor.openapi({ description: 'Who made the order (extension)' }),
    acted_by: Actor.openapi({ description: 'Who last set the order moving: paid, cancelled, asked for its refund, or the engine for an expiry (extension)' }),
  })
  .openapi('TravelOrder');

/** A moment as Interface A writes it, or null. */
export const iso = isoOrNull;

/** A travel order as Interface A answers it (every service's order, the order list, and events' data). */
export function renderTravelOrder(o: OrderRow): z.infer<typeof TravelOrder> {
  return travelOrderView(o);
}

/**
 * A hotel cancellation's or a flight refund's answer: 200 once the refund is credited (what came
 * back, what was kept, its ledger row), else 202 naming the workflow still at it.
 */
export function renderMoneyBack<K extends string>(
  out: MoneyBackOutcome,
  words: { done: 'cancelled' | 'refunded'; underWay: 'cancelling' | 'refunding'; idField: K },
) {
  if (!out.done) {
    const id = { [words.idField]: out.workflowId } as Record<K, string>;
    return { done: false as const, data: { order_id: out.orderId, status: words.underWay, ...id } };
  }
  const { result } = out;
  return {
    done: true as const,
    data: {
      order_id: result.orderId,
      status: words.done,
      refund_amount: formatDecimal(result.refundMinor, result.currency),
      penalty: formatDecimal(result.penaltyMinor, result.currency),
      currency: result.currency,
      ledger_id: result.ledgerId,
    },
  };
}
