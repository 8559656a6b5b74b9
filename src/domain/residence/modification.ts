import { eq } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../db/client';
import { orders, properties, reservations } from '../../db/schema';
import { partsOf, priceChangeLegs, reversalLegs } from '../money/books';
import { recordOrderEvent } from '../events';
import { DomainError, notFound } from '../errors';
import { ledgerEntryOf, type PaymentRun } from '../money/payment-ledger';
import { applyMovement, insufficientCredit, lockWallet } from '../money/wallet';
import { assertFree, lockProperty } from './availability';
import { sellStay } from './pricing';
import { priceColumns } from '../money/markup';
import { markupOfRule, type CatalogueSettings } from '../money/markup-rules';
import { lockReservation } from './reservations';
import { parentIdOf } from '../sub-agencies';
import { checkStay } from './stay-rules';
import { actorNow } from '../../platform/request-context';
import type { ModificationResult, Stay, StayUndo } from '../../../workflows/residence.types';

export interface Modification {
  reservationId: number;
  seq: number;
  checkIn: string;
  checkOut: string;
  guests: number;
}

/** What re-prices a stay of a wallet in `currency`: the catalogue converted into it, when the engine's settings are given. */
const inWallet = (tx: Tx, currency: string, catalogue?: CatalogueSettings) => (catalogue ? { ...catalogue, db: tx, currency } : undefined);

/**
 * Changes a paid stay's dates or guests: re-priced, the new dates checked free (ignoring
 * the stay's own) under the property lock, and the difference charged to or refunded
 * through the wallet, all in one transaction. A retry of the same change writes nothing.
 */
export async function modifyStay(db: DbOrTx, input: PaymentRun & Modification, catalogue?: CatalogueSettings): Promise<ModificationResult> {
  const step = changeStep(input.seq);
  return db.transaction(async (tx) => {
    const { r, order } = await lockReservation(tx, input.reservationId);
    if (!order || order.status === 'pending' || order.status === 'processing') {
      throw new DomainError('validation', `reservation_id: the reservation is not paid yet`);
    }
    const wallet = await lockWallet(tx, order.partnerId);
    const done = await ledgerEntryOf(tx, input, step);
    if (done) {
      // A retry of a change already made (its answer was lost): the same answer again, from the row it wrote.
      const difference = done.direction === 'debit' ? done.amount : -done.amount;
      return {
        previousTotalMinor: r.totalPrice - difference,
        newTotalMinor: r.totalPrice,
        differenceMinor: difference,
        ledgerId: done.id,
        currency: r.currency,
      };
    }
    if (r.status !== 'confirmed') throw new DomainError('validation', `reservation_id: reservation ${r.id} is ${r.status}; only a confirmed stay can change`);
    const p = await lockProperty(tx, r.propertyId);
    checkStay(p, input.checkIn, input.checkOut, input.guests, new Date());
    await assertFree(tx, p.id, input.checkIn, input.checkOut, r.id);
    // Re-priced with the rule that priced the order (none: at net).
    const price = sellStay(
      p,
      await markupOfRule(tx, order.pricingRuleId, { partnerId: order.partnerId, service: 'residence' }, inWallet(tx, r.currency, catalogue)),
      input.checkIn,
      input.checkOut,
    );
    const newTotal = price.sellMinor;
    const difference = newTotal - r.totalPrice;
    // The books move by the change of each part.
    const before = partsOf(order);
    const after = { net: price.netMinor, margin: price.marginMinor };
    let ledgerId: number | null = null;
    if (difference !== 0) {
      // More costs a debit (within the credit available), less is refunded: one ledger row either way.
      if (difference > 0) {
        const available = wallet.balance + wallet.creditLimit;
        if (difference > available) throw insufficientCredit(available, difference, wallet.currency);
      }
      ledgerId = (
        await applyMovement(
          tx,
          wallet,
          {
            direction: difference > 0 ? 'debit' : 'credit',
            type: difference > 0 ? 'payment' : 'refund',
            amount: Math.abs(difference),
            orderId: order.id,
            workflowId: input.workflowId,
            runId: input.runId,
            step,
            note: `change of residence reservation ${r.id}`,
          },
          priceChangeLegs(
            { ...order, agencyParentId: await parentIdOf(tx, order.partnerId) },
            { net: after.net - before.net, margin: after.margin - before.margin, agencyMargin: price.agencyMarginMinor - order.agencyMargin },
          ),
        )
      ).id;
    }
    const now = new Date();
    await tx
      .update(reservations)
      .set({ checkIn: input.checkIn, checkOut: input.checkOut, guests: input.guests, totalPrice: newTotal, ...priceColumns(price), updatedAt: now })
      .where(eq(reservations.id, r.id));
    await tx
      .update(orders)
      .set({ totalPrice: newTotal, ...priceColumns(price), actedBy: actorNow(), updatedAt: now })
      .where(eq(orders.id, order.id));
    // Not a move of the order's status, so the trigger does not see it: said here, in the same transaction.
    await recordOrderEvent(tx, 'reservation.modified', order.id);
    return { previousTotalMinor: r.totalPrice, newTotalMinor: newTotal, differenceMinor: difference, ledgerId, currency: r.currency };
  });
}

/**
 * The two parts of a stay's price put back: priced again as it was with the order's rule;
 * should the property's rates have moved since, the margin is kept within the price.
 */
async function restoredParts(
  tx: Tx,
  propertyId: number,
  ruleId: number | null,
  stay: Stay,
  partnerId: number,
  currency: string,
  catalogue?: CatalogueSettings,
) {
  const [p] = await tx.select().from(properties).where(eq(properties.id, propertyId));
  const again = sellStay(
    p!,
    await markupOfRule(tx, ruleId, { partnerId, service: 'residence' }, inWallet(tx, currency, catalogue)),
    stay.checkIn,
    stay.checkOut,
  );
  const margin = again.sellMinor === stay.totalMinor ? again.marginMinor : Math.min(again.marginMinor, stay.totalMinor);
  return { netPrice: stay.totalMinor - margin, margin, pricingRuleId: ruleId, agencyMargin: Math.min(again.agencyMarginMinor, margin) };
}

/** The stay as it stands now (read by the reservation's workflow before it changes it). */
export async function currentStay(db: DbOrTx, reservationId: number): Promise<Stay> {
  const [r] = await db.select().from(reservations).where(eq(reservations.id, reservationId));
  if (!r) throw notFound(`reservation ${reservationId}`);
  return { checkIn: r.checkIn, checkOut: r.checkOut, guests: r.guests, totalMinor: r.totalPrice, confirmationNumber: r.confirmationNumber };
}

export const changeStep = (seq: number) => `modify-${seq}`;
const undoStep = (seq: number) => `modify-${seq}-undo`;

/**
 * Puts a stay back as it was before change `seq`, which the host would not take: its
 * dates, guests and price, the change's wallet movement reversed (a debit refunded, a
 * refund taken back, whatever the credit left: it pays for a change that did not happen),
 * and a `reservation.modified` event, since the stay moved back. One transaction; a retry
 * writes nothing twice, and neither does the undo of a change that moved no money.
 */
export async function undoStayChange(db: DbOrTx, input: StayUndo, catalogue?: CatalogueSettings): Promise<{ reversalLedgerId: number | null }> {
  return db.transaction(async (tx) => {
    const { r, order } = await lockReservation(tx, input.reservationId);
    const change = await ledgerEntryOf(tx, input, changeStep(input.seq));
    let reversalLedgerId: number | null = null;
    if (change) {
      const already = await ledgerEntryOf(tx, input, undoStep(input.seq));
      const refunded = change.direction === 'credit';
      reversalLedgerId = already
        ? already.id
        : (
            await applyMovement(
              tx,
              await lockWallet(tx, change.partnerId),
              {
                direction: refunded ? 'debit' : 'credit',
                type: refunded ? 'payment' : 'refund',
                amount: change.amount,
                orderId: change.orderId ?? undefined,
                workflowId: input.workflowId,
                runId: input.runId,
                step: undoStep(input.seq),
                reversesEntryId: change.id,
                note: `reversal of change ${input.seq} of residence reservation ${r.id}: ${input.reason}`.slice(0, 500),
              },
              await reversalLegs(tx, change.id),
            )
          ).id;
    }
    const { previous } = input;
    const asBefore = r.checkIn === previous.checkIn && r.checkOut === previous.checkOut && r.guests === previous.guests && r.totalPrice === previous.totalMinor;
    if (!asBefore) {
      const now = new Date();
      const parts = await restoredParts(tx, r.propertyId, order?.pricingRuleId ?? r.pricingRuleId, previous, r.partnerId, r.currency, catalogue);
      await tx
        .update(reservations)
        .set({ checkIn: previous.checkIn, checkOut: previous.checkOut, guests: previous.guests, totalPrice: previous.totalMinor, ...parts, updatedAt: now })
        .where(eq(reservations.id, r.id));
      if (order) {
        await tx
          .update(orders)
          .set({ totalPrice: previous.totalMinor, ...parts, actedBy: actorNow(), updatedAt: now })
          .where(eq(orders.id, order.id));
        await recordOrderEvent(tx, 'reservation.modified', order.id);
      }
    }
    return { reversalLedgerId };
  });
}

export type { ModificationResult, Stay, StayUndo };
