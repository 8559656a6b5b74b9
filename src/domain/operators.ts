import { WorkflowNotFoundError, type Client, type QueryDefinition, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { flightChanges, ledgerEntries, reservations } from '../db/schema';
import { operatorDecisionSignal, payStateQuery, type OperatorDecision, type PayState } from '../../workflows/pay.types';
import { CANCELLATION_REFUSALS, cancellationStateQuery, type CancellationState } from '../../workflows/park.types';
import { cancelWorkflowId } from '../../workflows/hotel.types';
import { offlineRefundWorkflowId, refundWorkflowId } from '../../workflows/flight.types';
import { changeStateQuery, type ChangeState } from '../../workflows/flight-change.types';
import { scheduleChangeWorkflowId } from '../../workflows/schedule-change.types';
import { scheduleChangesOfOrder } from './flights/schedule-changes';
import { CANCEL_AT_HOST_REFUSALS, reservationWorkflowId, STAY_UNDO_REFUSALS } from '../../workflows/residence.types';
import type { WorkflowType } from '../../workflows/registry.types';
import { OrderId, PartnerId, Service } from '../../workflows/search-attributes';
import { DomainError, notFound } from './errors';
import { orderEvents, type EventRow } from './events';
import { isStorableId } from './ids';
import { getOrder, type OrderRow } from './orders';
import { PAYMENT_DEBIT_STEP, PAYMENT_REVERSAL_STEP } from './money/payment-ledger';
import type { LedgerRow } from './money/wallet';

export interface OperatorDeps {
  db: Db;
  temporal: Client;
  waitMs: number;
}

/** A workflow as an operator sees it: its status and, while it runs, the state its query answers. */
export interface WorkflowView<S> {
  workflowId: string;
  runId: string | null;
  /** Temporal's execution status (RUNNING, COMPLETED, FAILED, ...), or NOT_FOUND. */
  status: string;
  state: S | null;
  /** For a run that FAILED: what it failed with (the message its history closes with); else null. */
  failure: string | null;
  /**
   * The worker version the run is on (docs/operations.md, "Deploy a new version"): the build
   * id, and whether the run is pinned to it or moves to the current one. Null before its
   * first workflow task, or when not found.
   */
  version: { buildId: string; behavior: 'pinned' | 'auto_upgrade' } | null;
}

/** The worker version a run is on, from its description. */
function versionOf(info: temporal.api.workflow.v1.IWorkflowExecutionInfo | null | undefined): WorkflowView<unknown>['version'] {
  const v = info?.versioningInfo;
  const buildId = v?.deploymentVersion?.buildId;
  if (!buildId) return null;
  return { buildId, behavior: v?.behavior === temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_PINNED ? 'pinned' : 'auto_upgrade' };
}

/** The message a failed run closed with: its last event. */
async function closingFailure(handle: WorkflowHandle): Promise<string | null> {
  const { events } = await handle.fetchHistory();
  return events?.at(-1)?.workflowExecutionFailedEventAttributes?.failure?.message ?? null;
}

/** A workflow run (the latest one without a run id) as an operator sees it. */
async function workflowOf<S>(
  temporal: Client,
  run: { workflowId: string; runId?: string | null } | null,
  query: QueryDefinition<S>,
): Promise<WorkflowView<S> | null> {
  if (!run) return null;
  const { workflowId } = run;
  const handle = temporal.workflow.getHandle(workflowId, run.runId ?? undefined);
  try {
    const d = await handle.describe();
    const running = d.status.name === 'RUNNING';
    // A run made before the query existed (a residence stay booked earlier) does not answer it.
    const state = running ? await handle.query(query).catch(() => null) : null;
    const failure = d.status.name === 'FAILED' ? await closingFailure(handle) : null;
    return { workflowId, runId: d.runId, status: d.status.name, state, failure, version: versionOf(d.raw.workflowExecutionInfo) };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { workflowId, runId: run.runId ?? null, status: 'NOT_FOUND', state: null, failure: null, version: null };
    throw err;
  }
}

/** The workflows that cancel or refund an order, by service (their ids are derived from the order). */
async function cancellationIds(db: Db, order: { id: number; partnerId: number; service: string }): Promise<string[]> {
  if (order.service === 'hotel') return [cancelWorkflowId(order.partnerId, order.id)];
  if (order.service === 'flight') {
    const changes = (await scheduleChangesOfOrder(db, order.id)).map((c) => scheduleChangeWorkflowId(order.id, c.changeId));
    // The refunds last: when none waits or runs, an order's refund is what inspect shows.
    return [...changes, refundWorkflowId(order.partnerId, order.id), offlineRefundWorkflowId(order.id)];
  }
  if (order.service === 'residence') {
    const [r] = await db.select({ id: reservations.id }).from(reservations).where(eq(reservations.orderId, order.id));
    return r ? [reservationWorkflowId(r.id)] : [];
  }
  return [];
}

/** The order's cancellation or refund, if one was started: the one parked first, else the one running, else the last found. */
async function cancellationOf(deps: OperatorDeps, order: { id: number; partnerId: number; service: string }): Promise<WorkflowView<CancellationState> | null> {
  const found: WorkflowView<CancellationState>[] = [];
  for (const id of await cancellationIds(deps.db, order)) {
    const wf = await workflowOf(deps.temporal, { workflowId: id }, cancellationStateQuery);
    if (wf && wf.status !== 'NOT_FOUND') found.push(wf);
  }
  return found.find((w) => w.state?.step === 'needs_attention') ?? found.find((w) => w.status === 'RUNNING') ?? found.at(-1) ?? null;
}

/** A payment run as an operator sees it: its workflow, and the money it moved (its debit and, if undone, the reversal). */
export interface PaymentView extends WorkflowView<PayState> {
  debit: LedgerRow | null;
  reversal: LedgerRow | null;
}

/**
 * `admin order inspect`: the order, its money, and where its payment workflow stands (step,
 * last error), and its cancellation or refund workflow's if it has one.
 */
export interface OrderInspection {
  order: OrderRow;
  ledger: LedgerRow[];
  payment: PaymentView | null;
  cancellation: WorkflowView<CancellationState> | null;
  /** Its events in commit order, operator-only ones (order.needs_attention) included. */
  events: EventRow[];
}

/**
 * The order's payment run: the one holding it (an order being paid, or paid), else the last
 * one that debited it. A failed payment lets go of the order (so that it can be paid again),
 * but its debit and reversal rows still name its run.
 */
function paymentRunOf(order: OrderRow, ledger: LedgerRow[]): { workflowId: string; runId: string | null } | null {
  if (order.paymentWorkflowId) return { workflowId: order.paymentWorkflowId, runId: order.paymentRunId };
  const debit = [...ledger].reverse().find((l) => l.step === PAYMENT_DEBIT_STEP && l.workflowId);
  return debit ? { workflowId: debit.workflowId!, runId: debit.runId } : null;
}

export async function inspectOrder(deps: OperatorDeps, orderId: number): Promise<OrderInspection> {
  const order = isStorableId(orderId) ? await getOrder(deps.db, orderId) : undefined;
  if (!order) throw notFound(`order ${orderId}`);
  const ledger = await deps.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, orderId)).orderBy(asc(ledgerEntries.id));
  const run = paymentRunOf(order, ledger);
  const wf = await workflowOf(deps.temporal, run, payStateQuery);
  const ofRun = (step: string) => ledger.find((l) => l.workflowId === wf?.workflowId && l.runId === wf?.runId && l.step === step) ?? null;
  return {
    order,
    ledger,
    payment: wf ? { ...wf, debit: ofRun(PAYMENT_DEBIT_STEP), reversal: ofRun(PAYMENT_REVERSAL_STEP) } : null,
    cancellation: await cancellationOf(deps, order),
    events: await orderEvents(deps.db, orderId),
  };
}

/**
 * The decisions that do not apply where the payment is parked
 * (docs/decisions/bounded-steps-and-the-pivot.md). After the supplier confirmed, the partner
 * has what was paid for: the payment is never compensated, only completed (retry, or
 * confirm, which does the same). While a failed payment's debit is being reversed, there is
 * nothing to confirm.
 */
function refuseAfterPivot(orderId: number, state: PayState, action: OperatorDecision['action']): void {
  if (state.parkedAt === 'completing' && action === 'compensate') {
    throw new DomainError(
      'conflict',
      `order ${orderId}: the supplier confirmed this payment (${state.supplierRef ?? 'reference recorded by the workflow'}), so it is never compensated; ` +
        `retry the completion (order retry) once its cause (${state.lastError ?? 'see the last error'}) is fixed; to give the money back, cancel or refund the order through its service`,
    );
  }
  if (state.parkedAt === 'compensating' && action === 'confirm') {
    throw new DomainError(
      'conflict',
      `order ${orderId}: this payment failed and its debit is being reversed, so there is nothing to confirm; retry the reversal (order retry)`,
    );
  }
}

/**
 * `admin order retry|confirm|compensate`: only for a payment, or a cancellation, parked in
 * needs_attention; the decision is signalled to its workflow, which then finishes one way or
 * the other. A parked cancellation (the supplier cancelled, the refund could not be written)
 * takes only retry: confirm and compensate are refused (409), saying why. So does a stay
 * parked undoing a change the host did not take; one parked telling the host's system of a
 * cancellation the host accepted also takes confirm (the host did cancel), not compensate.
 */
export async function decidePayment(deps: OperatorDeps, orderId: number, decision: OperatorDecision): Promise<OrderInspection> {
  const before = await inspectOrder(deps, orderId);
  const state = before.payment?.state;
  const cancellation = before.cancellation;
  let workflowId: string;
  if (state?.step === 'needs_attention') {
    refuseAfterPivot(orderId, state, decision.action);
    workflowId = before.payment!.workflowId;
  } else if (cancellation?.state?.step === 'needs_attention') {
    const parkedAt = cancellation.state.parkedAt as string | undefined;
    const scheduleChange = parkedAt === 'applying_decision' || parkedAt === 'default_applied';
    if (scheduleChange) {
      if (decision.action === 'compensate') {
        throw new DomainError(
          'conflict',
          `order ${orderId}: its airline schedule change is parked ${parkedAt === 'default_applied' ? 'after the default was applied' : 'applying the decision'}, which the airline has been told and is not undone here: retry (${cancellation.state.lastError ?? 'see the last error'})`,
        );
      }
    } else if (decision.action !== 'retry' && cancellation.state.parkedAt === 'undoing_change') {
      throw new DomainError(
        'conflict',
        `order ${orderId}: its stay is parked undoing a change the host did not take: ${STAY_UNDO_REFUSALS[decision.action]} (order retry) once its cause (${cancellation.state.lastError ?? 'see the last error'}) is fixed`,
      );
    }
    if (decision.action === 'compensate' && cancellation.state.parkedAt === 'cancelling_at_host') {
      throw new DomainError(
        'conflict',
        `order ${orderId}: its stay is parked telling the host of a cancellation it accepted: ${CANCEL_AT_HOST_REFUSALS.compensate} (${cancellation.state.lastError ?? 'see the last error'})`,
      );
    }
    if (decision.action !== 'retry' && cancellation.state.parkedAt !== 'cancelling_at_host' && !scheduleChange) {
      throw new DomainError(
        'conflict',
        `order ${orderId}: its cancellation is parked after the supplier cancelled (${cancellation.state.supplierRef ?? 'see the workflow'}): ` +
          `${CANCELLATION_REFUSALS[decision.action]} (order retry) once its cause (${cancellation.state.lastError ?? 'see the last error'}) is fixed`,
      );
    }
    workflowId = cancellation.workflowId;
  } else if (await parkedChangeOf(deps, orderId)) {
    return decideChange(deps, orderId, (await parkedChangeOf(deps, orderId))!, decision);
  } else {
    throw new DomainError(
      'validation',
      `order ${orderId}: neither its payment, a cancellation nor a change is waiting for an operator (payment step ${state?.step ?? 'none'}, order ${before.order.status})`,
    );
  }
  await deps.temporal.workflow.getHandle(workflowId).signal(operatorDecisionSignal, decision);
  // Wait (bounded) for the decision to take effect, then show the order as it is: the order's
  // status changed and, for a payment, its run has ended too (it lets go of the order a moment
  // before it closes), so that the answer tells one story.
  const deadline = Date.now() + deps.waitMs;
  const decidedPayment = workflowId === before.payment?.workflowId;
  // A stay's owed undo leaves the order's status as it was: it has taken effect once the stay is no longer parked or undoing.
  const parkedAt = cancellation?.state?.parkedAt as string | undefined;
  const undoing = !decidedPayment && (parkedAt === 'undoing_change' || parkedAt === 'applying_decision' || parkedAt === 'default_applied');
  for (;;) {
    const now = await inspectOrder(deps, orderId);
    const step = now.cancellation?.state?.step;
    const settled = undoing
      ? step !== 'needs_attention' && step !== 'undoing_change'
      : now.order.status !== before.order.status && (!decidedPayment || now.payment?.status !== 'RUNNING');
    // Settled, the order is read once more: an inspection reads the books before the workflow's
    // state, so the reading that saw the state settled may predate what settling wrote.
    if (settled) return inspectOrder(deps, orderId);
    if (Date.now() > deadline) return now;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The order's flight change under way whose workflow is parked for an operator, if any. */
async function parkedChangeOf(deps: OperatorDeps, orderId: number): Promise<WorkflowView<ChangeState> | null> {
  const [change] = await deps.db
    .select({ workflowId: flightChanges.workflowId })
    .from(flightChanges)
    .where(and(eq(flightChanges.orderId, orderId), eq(flightChanges.status, 'confirming')));
  if (!change) return null;
  const wf = await workflowOf(deps.temporal, { workflowId: change.workflowId }, changeStateQuery);
  return wf?.state?.step === 'needs_attention' ? wf : null;
}

/** What does not apply where a flight change is parked, and why. */
const CHANGE_REFUSALS: Record<string, Partial<Record<OperatorDecision['action'], string>>> = {
  changing: { confirm: 'retry looks the change up at the airline and completes it if the airline made it' },
  completing: { compensate: 'the airline made the change, so it is never compensated; retry the completion' },
  compensating: { confirm: 'the change failed and its debit is being credited back; retry the credit' },
};

/**
 * A parked flight change: the decision that applies is signalled to its workflow, which then
 * goes on; the answer is the order once the change has left needs_attention (or the wait ends).
 */
async function decideChange(deps: OperatorDeps, orderId: number, wf: WorkflowView<ChangeState>, decision: OperatorDecision): Promise<OrderInspection> {
  const refused = CHANGE_REFUSALS[wf.state?.parkedAt ?? '']?.[decision.action];
  if (refused) throw new DomainError('conflict', `order ${orderId}: its change is parked ${wf.state?.parkedAt}: ${refused}`);
  await deps.temporal.workflow.getHandle(wf.workflowId).signal(operatorDecisionSignal, decision);
  const deadline = Date.now() + deps.waitMs;
  for (;;) {
    const now = await workflowOf(deps.temporal, { workflowId: wf.workflowId }, changeStateQuery);
    if (now?.status !== 'RUNNING' || now.state?.step !== 'needs_attention' || Date.now() > deadline) return inspectOrder(deps, orderId);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** What Temporal lists as parked: running workflows in `Stage = "needs_attention"`. */
export const NEEDS_ATTENTION_QUERY = 'Stage = "needs_attention" AND ExecutionStatus = "Running"';

/**
 * `admin needs-attention`: every workflow parked for an operator, payments and cancellations
 * alike, with where and why each waits (its query's state). At most 100, oldest first as
 * Temporal lists them; Temporal's visibility may lag a parking by a moment.
 */
/** The pay workflow's type, as Temporal lists it: its parked runs answer payStateQuery, every other one cancellationStateQuery. */
const PAY_WORKFLOW: WorkflowType = 'payOrder';
const CHANGE_WORKFLOW: WorkflowType = 'changeFlight';

/** A workflow parked for an operator, with where and why it waits. */
export interface ParkedWorkflow {
  workflowId: string;
  workflowType: string;
  kind: 'payment' | 'cancellation' | 'change';
  orderId: number | null;
  partnerId: number | null;
  service: string | null;
  startedAt: Date;
  state: PayState | CancellationState | ChangeState | null;
}

export async function needsAttention(deps: Pick<OperatorDeps, 'temporal'>): Promise<ParkedWorkflow[]> {
  const results: ParkedWorkflow[] = [];
  for await (const wf of deps.temporal.workflow.list({ query: NEEDS_ATTENTION_QUERY, pageSize: 100 })) {
    const handle = deps.temporal.workflow.getHandle(wf.workflowId, wf.runId);
    const asked: Promise<PayState | CancellationState | ChangeState> =
      wf.type === PAY_WORKFLOW
        ? handle.query(payStateQuery)
        : wf.type === CHANGE_WORKFLOW
          ? handle.query(changeStateQuery)
          : handle.query(cancellationStateQuery);
    const state = await asked.catch(() => null);
    results.push({
      workflowId: wf.workflowId,
      workflowType: wf.type,
      kind: wf.type === PAY_WORKFLOW ? 'payment' : wf.type === CHANGE_WORKFLOW ? 'change' : 'cancellation',
      orderId: wf.typedSearchAttributes.get(OrderId) ?? state?.orderId ?? null,
      partnerId: wf.typedSearchAttributes.get(PartnerId) ?? null,
      service: wf.typedSearchAttributes.get(Service) ?? null,
      startedAt: wf.startTime,
      state,
    });
    if (results.length >= 100) break;
  }
  return results;
}
