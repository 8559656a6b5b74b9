import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { cancelQuotes } from '../db/schema';
import { DomainError } from './errors';

export const QUOTE_TTL_MS = 10 * 60 * 1000;

/**
 * A penalty quote (hotel cancel_display, flight air_refund_display): what the partner was
 * shown is what it gets, if it acts before the quote expires.
 */
export async function issueQuote(
  db: DbOrTx,
  input: { partnerId: number; orderId: number; penaltyMinor: number; refundMinor: number; now: Date; notAfter?: number | null },
): Promise<{ id: string; expiresAt: Date }> {
  const expiresAt = new Date(Math.min(input.now.getTime() + QUOTE_TTL_MS, input.notAfter ?? Number.POSITIVE_INFINITY));
  const id = `q_${crypto.randomBytes(12).toString('hex')}`;
  await db
    .insert(cancelQuotes)
    .values({ id, partnerId: input.partnerId, orderId: input.orderId, penalty: input.penaltyMinor, refund: input.refundMinor, expiresAt });
  return { id, expiresAt };
}

/** The quote's amounts, if it is this partner's, for this order, and still valid. */
export async function redeemQuote(
  db: DbOrTx,
  partnerId: number,
  orderId: number,
  quoteId: string,
  now: Date,
): Promise<{ penaltyMinor: number; refundMinor: number }> {
  const [quote] = await db.select().from(cancelQuotes).where(eq(cancelQuotes.id, quoteId));
  if (!quote || quote.partnerId !== partnerId || quote.orderId !== orderId) {
    throw new DomainError('validation', `quote_id: no quote ${quoteId} for order ${orderId}`);
  }
  if (quote.expiresAt.getTime() <= now.getTime()) {
    throw new DomainError('validation', `quote_id: quote ${quoteId} expired at ${quote.expiresAt.toISOString()}; ask for a new one`);
  }
  return { penaltyMinor: quote.penalty, refundMinor: quote.refund };
}
