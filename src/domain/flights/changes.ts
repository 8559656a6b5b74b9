import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../db/client';
import { flightBookings, flightChanges, ledgerEntries, orders } from '../../db/schema';
import type { SecretBox } from '../../platform/secret-box';
import { actorNow } from '../../platform/request-context';
import { withScenario } from '../../sandbox/context';
import type { ChangeOffer, FlightAfterSale, NewLeg } from '../../suppliers/flight-after-sale';
import type { FlightSupplier, Leg, Money } from '../../suppliers/flights';
import { account, leg, reversalLegs, type Leg as Transfer } from '../money/books';
import { DomainError, notFound, validation } from '../errors';
import { recordOrderEvent } from '../events';
import { markupFor } from '../money/markup-rules';
import { pricerFor, pricingIn, type Pricer, type PricingDeps } from '../money/pricing';
import { parentIdOf } from '../sub-agencies';
import { supplierRead } from '../supplier-reads';
import { applyMovement, insufficientCredit, lockWallet } from '../money/wallet';
import { flightBookingOfOrder, flightOrderOf, supplierOrderIdOf, type FlightBookingRow } from './bookings';
import { openChangeOffer, sealChangeOffer, type SealedChangeOffer } from './change-offers';
import type { OrderRow } from '../orders';
import type { ChangedAtAirline, ChangeResult } from '../../../workflows/flight-change.types';

export type FlightChangeRow = typeof flightChanges.$inferSelect;

/** What pricing and confirming a change needs: the database, the airline that holds each order, and how its amounts are priced. */
export interface ChangeDeps {
  db: DbOrTx;
  afterSaleOf(supplier: string): FlightAfterSale;
  /** The airline's orders, as they stand. */
  supplierOf(supplier: string): FlightSupplier;
  pricing: PricingDeps;
}

/** A change offer as the partner sees it, in its wallet's currency. */
export interface PricedChange {
  changeOfferId: string;
  expiresAt: string;
  /** The airline's fare difference (signed), its penalty, the engine's fee, and the total to pay (negative: to be refunded). */
  fareDifferenceMinor: number;
  penaltyMinor: number;
  feeMinor: number;
  totalMinor: number;
  currency: string;
  remove: number[];
  add: Leg[];
}

/** A ticketed flight still to fly, with its airline order: what a change may be asked of. */
export async function changeableOrder(
  db: DbOrTx,
  partnerId: number,
  orderId: number,
  now: Date,
): Promise<{ order: OrderRow; booking: FlightBookingRow; airlineOrderId: string }> {
  const order = await flightOrderOf(db, partnerId, orderId);
  if (order.status !== 'completed') throw validation('order_id', `order ${orderId} is ${order.status}; only a ticketed order can be changed`);
  const booking = await flightBookingOfOrder(db, orderId);
  if (!booking || booking.departureAt.getTime() <= now.getTime()) throw validation('order_id', `the flight of order ${orderId} has departed`);
  const airlineOrderId = supplierOrderIdOf(booking);
  if (!airlineOrderId) throw validation('order_id', `order ${orderId} has no airline order to change`);
  return { order, booking, airlineOrderId };
}

/** A signed amount of the airline's in the wallet's currency: the same rounding each way. */
const signedMinor = (pricer: Pricer, m: Money) => Math.sign(m.amount_minor) * pricer.minor({ ...m, amount_minor: Math.abs(m.amount_minor) });

/**
 * POST /api/flights/air_change_request/: the airline's offers to replace legs `remove` of a
 * ticketed order with `add`, each priced in the wallet's currency (the airline's total at
 * today's rate, and the engine's `flight_change` fee on what the airline charges) and sealed.
 */
export async function requestChange(
  deps: ChangeDeps,
  partnerId: number,
  input: { order_id: number; remove: number[]; add: NewLeg[] },
  now: Date,
  scenario?: string,
): Promise<{ requestId: string; orderId: number; offers: PricedChange[] }> {
  const { order, booking, airlineOrderId } = await changeableOrder(deps.db, partnerId, input.order_id, now);
  const legs = (booking.legs ?? []) as Leg[];
  const bad = input.remove.find((i) => i >= legs.length);
  if (bad !== undefined) throw validation('remove', `order ${order.id} has ${legs.length} leg(s); there is no leg ${bad}`);
  if (new Set(input.remove).size !== input.remove.length) throw validation('remove', 'names a leg more than once');
  const airline = deps.afterSaleOf(booking.supplier);
  const request = await supplierRead('order_id', () =>
    withScenario(scenario, () => airline.requestChange(airlineOrderId, { remove: input.remove, add: input.add })),
  );
  const offers = [];
  for (const offer of request.offers) offers.push(await priceChange(deps, order, booking.supplier, offer, now));
  return { requestId: request.request_id, orderId: order.id, offers };
}

async function priceChange(deps: ChangeDeps, order: OrderRow, supplier: string, offer: ChangeOffer, now: Date): Promise<PricedChange> {
  const inWallet = pricingIn(deps.pricing, order.currency);
  const pricer = await pricerFor(inWallet, [offer.change_total, offer.penalty], now);
  const netMinor = signedMinor(pricer, offer.change_total);
  const penaltyMinor = pricer.minor(offer.penalty);
  const markup = await markupFor({ db: deps.db, currency: order.currency }, { service: 'flight_change', partnerId: order.partnerId, supplier, now });
  const fee = markup.price(Math.max(netMinor, 0));
  const sealed: SealedChangeOffer = {
    orderId: order.id,
    id: offer.change_offer_id,
    supplier: offer.change_total,
    netMinor,
    penaltyMinor,
    feeMinor: fee.marginMinor,
    agencyFeeMinor: fee.agencyMarginMinor,
    ruleId: fee.ruleId,
    currency: order.currency,
    expiresAt: offer.expires_at,
    remove: offer.remove,
  };
  return {
    changeOfferId: sealChangeOffer(deps.pricing.codes, sealed),
    expiresAt: offer.expires_at,
    fareDifferenceMinor: netMinor - penaltyMinor,
    penaltyMinor,
    feeMinor: fee.marginMinor,
    totalMinor: netMinor + fee.marginMinor,
    currency: order.currency,
    remove: offer.remove,
    add: offer.add,
  };
}

/** One change per partner and idempotency key: its workflow's id. */
export const changeWorkflowId = (partnerId: number, idempotencyKey: string) =>
  `flight-change:p${partnerId}:${createHash('sha256').update(idempotencyKey).digest('base64url').slice(0, 22)}`;

/**
 * POST /api/flights/air_change_confirm/: records the change the partner chose, at the price
 * it was shown, for its workflow to make. The same key with the same offer is the same
 * change (its row, to join); with another offer, a conflict. An offer past its expiry, one
 * the airline now prices differently, or a second change while one is under way is refused.
 */
export async function recordChange(
  deps: ChangeDeps & { codes: SecretBox },
  partnerId: number,
  input: { order_id: number; change_offer_id: string; idempotency_key: string },
  now: Date,
): Promise<FlightChangeRow> {
  const sealed = openChangeOffer(deps.codes, input.change_offer_id);
  const known = await knownChange(deps.db, partnerId, input.idempotency_key, (k) => k.changeOfferId === sealed.id && k.orderId === input.order_id);
  if (known) return known;
  if (sealed.orderId !== input.order_id) throw validation('change_offer_id', `was offered for order ${sealed.orderId}, not ${input.order_id}`);
  const { order, booking } = await changeableOrder(deps.db, partnerId, input.order_id, now);
  if (sealed.currency !== order.currency) throw validation('change_offer_id', 'was priced in another currency; ask for the change again');
  if (Date.parse(sealed.expiresAt) <= now.getTime()) throw validation('change_offer_id', 'has expired; ask for the change again (air_change_request)');
  const current = await supplierRead('change_offer_id', () => deps.afterSaleOf(booking.supplier).changeOffer(sealed.id));
  if (current.change_total.amount_minor !== sealed.supplier.amount_minor || current.change_total.currency !== sealed.supplier.currency) {
    throw validation('change_offer_id', 'the airline now prices this change differently; ask for the change again');
  }
  return insertChange(deps.db, {
    kind: 'change',
    partnerId,
    orderId: order.id,
    idempotencyKey: input.idempotency_key,
    supplier: booking.supplier,
    changeOfferId: sealed.id,
    supplierAmount: sealed.supplier.amount_minor,
    supplierCurrency: sealed.supplier.currency,
    netMinor: sealed.netMinor,
    penaltyMinor: sealed.penaltyMinor,
    feeMinor: sealed.feeMinor,
    agencyFeeMinor: sealed.agencyFeeMinor,
    currency: sealed.currency,
    pricingRuleId: sealed.ruleId,
    remove: sealed.remove,
    add: current.add,
  });
}

/** The change a partner's key already made, if it made one; the key used for something else (`same` says not) is a conflict. */
export async function knownChange(db: DbOrTx, partnerId: number, key: string, same: (known: FlightChangeRow) => boolean): Promise<FlightChangeRow | null> {
  const [known] = await db
    .select()
    .from(flightChanges)
    .where(and(eq(flightChanges.partnerId, partnerId), eq(flightChanges.idempotencyKey, key)));
  if (!known) return null;
  if (!same(known)) throw new DomainError('conflict', 'idempotency_key: already used for another change', 'idempotency_key');
  return known;
}

type NewChange = Omit<typeof flightChanges.$inferInsert, 'id' | 'totalMinor' | 'workflowId' | 'createdBy' | 'status'>;

/** A change recorded to be made, unless the order already has one under way (one at a time: the order's row is the lock). */
export async function insertChange(db: DbOrTx, values: NewChange): Promise<FlightChangeRow> {
  return db.transaction(async (tx) => {
    await tx.select({ id: orders.id }).from(orders).where(eq(orders.id, values.orderId)).for('update');
    const [underWay] = await tx
      .select({ id: flightChanges.id })
      .from(flightChanges)
      .where(and(eq(flightChanges.orderId, values.orderId), eq(flightChanges.status, 'confirming')));
    if (underWay) throw new DomainError('conflict', `order_id: order ${values.orderId} has a change under way`, 'order_id');
    const [change] = await tx
      .insert(flightChanges)
      .values({
        ...values,
        totalMinor: values.netMinor + values.feeMinor,
        workflowId: changeWorkflowId(values.partnerId, values.idempotencyKey),
        createdBy: actorNow(),
      })
      .returning();
    return change!;
  });
}

export async function flightChangeById(db: DbOrTx, id: number): Promise<FlightChangeRow> {
  const [row] = await db.select().from(flightChanges).where(eq(flightChanges.id, id));
  if (!row) throw notFound(`flight change ${id}`);
  return row;
}

/** The ledger step of a change's movement, and of its reversal: one each per change, whatever the run. */
const moveStep = (changeId: number) => `flight-change-${changeId}`;
const undoStep = (changeId: number) => `flight-change-${changeId}-undo`;

async function movementOf(tx: DbOrTx, orderId: number, step: string) {
  const [row] = await tx
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.orderId, orderId), eq(ledgerEntries.step, step)));
  return row;
}

/**
 * What a change posts: the airline's total to the supplier (through the conversion accounts
 * when it charges in another currency), the fee to the margins (the parent agency's share
 * to its account). Signed: what the airline refunds comes back from it.
 */
function changeLegs(change: FlightChangeRow, order: OrderRow, agencyParentId: number | null): Transfer[] {
  const wallet = account.wallet(order.partnerId);
  const cur = change.currency;
  const foreign = change.supplierCurrency !== cur;
  const net = change.netMinor;
  const agency = agencyParentId ? Math.min(change.agencyFeeMinor, change.feeMinor) : 0;
  return [
    ...(foreign
      ? [
          ...leg(net > 0 ? 'sale_net' : 'supplier_refund', wallet, account.fx(cur), cur, net),
          ...leg(
            'fx_conversion',
            account.fx(change.supplierCurrency),
            account.supplier(change.supplier, change.supplierCurrency),
            change.supplierCurrency,
            change.supplierAmount,
          ),
        ]
      : leg(net > 0 ? 'sale_net' : 'supplier_refund', wallet, account.supplier(change.supplier, cur), cur, net)),
    ...leg('sale_margin', wallet, account.margin(cur), cur, change.feeMinor - agency),
    ...(agencyParentId ? leg('agency_margin', wallet, account.agencyMargin(agencyParentId), cur, agency) : []),
  ];
}

/** A run of a change's workflow: what keys its ledger rows' authors. */
export interface ChangeRun {
  workflowId: string;
  runId: string;
  changeId: number;
}

/** Moves the wallet by the change's total (a debit when positive, a credit when not) with its legs, once per change. */
async function moveWallet(tx: Tx, change: FlightChangeRow, run: ChangeRun, order: OrderRow): Promise<number | null> {
  if (change.totalMinor === 0) return null;
  const done = await movementOf(tx, change.orderId, moveStep(change.id));
  if (done) return done.id;
  const wallet = await lockWallet(tx, change.partnerId);
  const debit = change.totalMinor > 0;
  if (debit && change.totalMinor > wallet.balance + wallet.creditLimit) {
    throw insufficientCredit(wallet.balance + wallet.creditLimit, change.totalMinor, wallet.currency);
  }
  const entry = await applyMovement(
    tx,
    wallet,
    {
      direction: debit ? 'debit' : 'credit',
      type: debit ? 'payment' : 'refund',
      amount: Math.abs(change.totalMinor),
      orderId: change.orderId,
      workflowId: run.workflowId,
      runId: run.runId,
      step: moveStep(change.id),
      note: `${change.kind === 'services' ? 'bags added to' : 'change of'} flight order ${change.orderId} (change ${change.id})`,
    },
    changeLegs(change, order, await parentIdOf(tx, change.partnerId)),
  );
  return entry.id;
}

async function lockChange(tx: Tx, changeId: number): Promise<{ change: FlightChangeRow; order: OrderRow }> {
  const [change] = await tx.select().from(flightChanges).where(eq(flightChanges.id, changeId)).for('update');
  if (!change) throw notFound(`flight change ${changeId}`);
  const [order] = await tx.select().from(orders).where(eq(orders.id, change.orderId)).for('update');
  return { change, order: order! };
}

/** The change's debit, before the airline is asked: only a change that costs something debits first. */
export async function debitChange(db: DbOrTx, run: ChangeRun): Promise<{ ledgerId: number | null }> {
  return db.transaction(async (tx) => {
    const { change, order } = await lockChange(tx, run.changeId);
    if (change.totalMinor <= 0 || change.status !== 'confirming') return { ledgerId: null };
    if (order.status !== 'completed')
      throw new DomainError('validation', `order_id: order ${order.id} is ${order.status}; only a ticketed order can be changed`);
    return { ledgerId: await moveWallet(tx, change, run, order) };
  });
}

/** A change the airline did not make: its debit (if any) credited back, and the change failed with why. */
export async function undoChange(db: DbOrTx, run: ChangeRun & { reason: string }): Promise<{ reversalLedgerId: number | null }> {
  return db.transaction(async (tx) => {
    const { change } = await lockChange(tx, run.changeId);
    const moved = await movementOf(tx, change.orderId, moveStep(change.id));
    let reversalLedgerId: number | null = null;
    if (moved) {
      const undone = await movementOf(tx, change.orderId, undoStep(change.id));
      reversalLedgerId =
        undone?.id ??
        (
          await applyMovement(
            tx,
            await lockWallet(tx, change.partnerId),
            {
              direction: moved.direction === 'debit' ? 'credit' : 'debit',
              type: moved.direction === 'debit' ? 'refund' : 'payment',
              amount: moved.amount,
              orderId: change.orderId,
              workflowId: run.workflowId,
              runId: run.runId,
              step: undoStep(change.id),
              reversesEntryId: moved.id,
              note: `reversal of change ${change.id} of flight order ${change.orderId}: ${run.reason}`.slice(0, 500),
            },
            await reversalLegs(tx, moved.id),
          )
        ).id;
    }
    if (change.status === 'confirming') {
      await tx
        .update(flightChanges)
        .set({ status: 'failed', failure: run.reason.slice(0, 500) })
        .where(eq(flightChanges.id, change.id));
    }
    return { reversalLedgerId };
  });
}

/**
 * The change made (the pivot passed): the order's legs, tickets, seats and bags as the
 * airline now has them, its price moved by the change's parts, a credit for a change that
 * gives money back, and `order.changed` (`order.services_added` for bags), in one
 * transaction; a retry writes nothing twice.
 */
export async function completeChange(db: DbOrTx, run: ChangeRun & ChangedAtAirline): Promise<ChangeResult> {
  return db.transaction(async (tx) => {
    const { change, order } = await lockChange(tx, run.changeId);
    if (change.status === 'confirmed') return resultOf(change, order);
    if (change.totalMinor < 0) await moveWallet(tx, change, run, order);
    const now = new Date();
    const firstDeparture = run.order.legs[0]?.segments[0]?.departure;
    await tx
      .update(flightBookings)
      .set({
        legs: run.order.legs,
        tickets: run.order.tickets,
        ...(run.order.services ? { services: run.order.services } : {}),
        ...(firstDeparture ? { departureAt: new Date(firstDeparture) } : {}),
        totalPrice: order.totalPrice + change.totalMinor,
        updatedAt: now,
      })
      .where(eq(flightBookings.orderId, order.id));
    const agencyFee = (await parentIdOf(tx, change.partnerId)) ? Math.min(change.agencyFeeMinor, change.feeMinor) : 0;
    const sameSupplierCurrency = order.supplierCurrency === change.supplierCurrency && order.supplierAmount !== null;
    const [updated] = await tx
      .update(orders)
      .set({
        totalPrice: order.totalPrice + change.totalMinor,
        ...(order.netPrice === null ? {} : { netPrice: order.netPrice + change.netMinor, margin: (order.margin ?? 0) + change.feeMinor }),
        agencyMargin: order.agencyMargin + agencyFee,
        ...(sameSupplierCurrency ? { supplierAmount: order.supplierAmount! + change.supplierAmount } : {}),
        actedBy: actorNow(),
        updatedAt: now,
      })
      .where(eq(orders.id, order.id))
      .returning();
    const [confirmed] = await tx
      .update(flightChanges)
      .set({ status: 'confirmed', ...(run.supplierChangeId ? { supplierChangeId: run.supplierChangeId } : {}), confirmedAt: now })
      .where(eq(flightChanges.id, change.id))
      .returning();
    // Not a move of the order's status, so the trigger does not see it: said here, in the same transaction.
    await recordOrderEvent(tx, change.kind === 'services' ? 'order.services_added' : 'order.changed', order.id);
    return resultOf(confirmed!, updated!);
  });
}

const resultOf = (change: FlightChangeRow, order: OrderRow): ChangeResult => ({
  changeId: change.id,
  orderId: change.orderId,
  status: change.status,
  totalMinor: change.totalMinor,
  orderTotalMinor: order.totalPrice,
  currency: change.currency,
});

/** Records the airline's change id as soon as it is known (what an operator looks up). */
export async function noteSupplierChange(db: DbOrTx, changeId: number, supplierChangeId: string): Promise<void> {
  await db.update(flightChanges).set({ supplierChangeId }).where(eq(flightChanges.id, changeId));
}

export type { ChangedAtAirline, ChangeResult };
