/**
 * Money back on a paid travel order, as flight refunds and hotel cancellations both give it:
 * the terms (the penalty kept, the rest refunded), quoted to the partner and honoured while
 * the quote lasts, and the refund once credited.
 */
import type { DbOrTx } from '../db/client';
import type { OrderRow } from './orders';
import type { PaymentRun } from './money/payment-ledger';
import { issueQuote, redeemQuote } from './quotes';
import { settleRefund, type RefundInput } from './refunds';
import type { RefundResult } from '../../workflows/refund.types';

export interface RefundTerms {
  order: OrderRow;
  penaltyMinor: number;
  refundMinor: number;
}

/** The terms issued as a quote (expiring at `notAfter` at the latest): its id and expiry, as the partner sees them. */
/** Where a cancellation or refund stands when the answer is due: credited (its result), or still with the supplier (its workflow). */
export type MoneyBackOutcome = { done: true; result: RefundResult } | { done: false; orderId: number; workflowId: string };

/** Terms as a quote: the amounts hold under `quoteId` until `expiresAt`. */
export interface QuotedTerms extends RefundTerms {
  quoteId: string;
  expiresAt: Date;
}

export async function quoteTerms(db: DbOrTx, partnerId: number, orderId: number, terms: RefundTerms, now: Date, notAfter: number | null): Promise<QuotedTerms> {
  const quote = await issueQuote(db, { partnerId, orderId, penaltyMinor: terms.penaltyMinor, refundMinor: terms.refundMinor, now, notAfter });
  return { order: terms.order, penaltyMinor: terms.penaltyMinor, refundMinor: terms.refundMinor, quoteId: quote.id, expiresAt: quote.expiresAt };
}

/**
 * The terms to apply: when a quote is given it must be this partner's, for this order and
 * still valid, and its amounts replace today's unless `applies` is false.
 */
export async function withQuote<T extends RefundTerms>(
  db: DbOrTx,
  partnerId: number,
  orderId: number,
  quoteId: string | undefined,
  now: Date,
  terms: T,
  applies = true,
): Promise<T> {
  if (!quoteId) return terms;
  const quoted = await redeemQuote(db, partnerId, orderId, quoteId, now);
  return applies ? { ...terms, ...quoted } : terms;
}

/** Credits the refund (see settleRefund: once per workflow run and step) and reports it. */
export async function creditRefund(
  db: DbOrTx,
  input: PaymentRun & { orderId: number; refundMinor: number; penaltyMinor: number },
  settle: Pick<RefundInput, 'step' | 'settledStatus' | 'from' | 'note' | 'onSettled' | 'supplierRefund'>,
): Promise<RefundResult> {
  const settled = await settleRefund(db, {
    workflowId: input.workflowId,
    runId: input.runId,
    orderId: input.orderId,
    amountMinor: input.refundMinor,
    ...settle,
  });
  return { orderId: input.orderId, refundMinor: input.refundMinor, penaltyMinor: input.penaltyMinor, ledgerId: settled.ledgerId, currency: settled.currency };
}

export type { RefundResult };
