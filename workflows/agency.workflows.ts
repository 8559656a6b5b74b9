import { ApplicationFailure, CancellationScope, ChildWorkflowFailure, executeChild, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { BookingActivities } from '../activities';
import { LEDGER_STEP, SUPPLIER_STEP } from './activity-options';
import { holdWorkflowId } from './hotel.types';
import { placeHotelHold } from './hotel.workflows';
import { payWorkflowId } from './pay.types';
import { payOrder } from './pay.workflow';
import { Stage } from './search-attributes';

const ledger = proxyActivities<BookingActivities>(LEDGER_STEP);
const supplier = proxyActivities<BookingActivities>(SUPPLIER_STEP);

/** The typed business failure inside a child's failure, re-raised as this workflow's own. */
function childFailure(err: unknown): ApplicationFailure | null {
  for (let cause: unknown = err; cause instanceof Error; cause = (cause as Error & { cause?: unknown }).cause) {
    if (cause instanceof ApplicationFailure && cause.type) return ApplicationFailure.nonRetryable(cause.message, cause.type);
  }
  return null;
}

/** What both of Interface B's workflows start with; the payment's part is handed to its child. */
interface AgencyPayment {
  partnerId: number;
  scenario?: string;
  /** The child payment runs its ledger steps as local activities (PAY_LOCAL_LEDGER_STEPS). */
  localLedgerSteps?: boolean;
}

async function pay(input: AgencyPayment, orderId: number) {
  return executeChild(payOrder, {
    workflowId: payWorkflowId(input.partnerId, { orderId }),
    args: [{ partnerId: input.partnerId, orderId, ...(input.scenario ? { scenario: input.scenario } : {}), ...(input.localLedgerSteps ? { localLedgerSteps: true } : {}) }],
  });
}

/**
 * Interface B creates a hotel booking settled at once: hold the room → create the order →
 * pay it (the payment saga: debit → confirm with the hotel). If the payment fails, its own
 * compensation already gave the money back; this one fails the order and releases the room.
 */
export async function agencyHotelBooking(input: AgencyPayment & { bookingId: number }): Promise<{ bookingId: number; orderId: number }> {
  upsertSearchAttributes([{ key: Stage, value: 'holding' }]);
  try {
    await executeChild(placeHotelHold, {
      workflowId: holdWorkflowId(input.bookingId, 'create'),
      args: [{ mode: 'create', bookingId: input.bookingId, clientReference: `hotel-hold:b${input.bookingId}` }],
    });
  } catch (err) {
    throw childFailure(err) ?? err;
  }
  const { orderId } = await ledger.orderAgencyBooking({ partnerId: input.partnerId, bookingId: input.bookingId });
  try {
    await pay(input, orderId);
  } catch (err) {
    if (!(err instanceof ChildWorkflowFailure)) throw err;
    upsertSearchAttributes([{ key: Stage, value: 'compensating' }]);
    await CancellationScope.nonCancellable(async () => {
      const { supplierHoldId } = await ledger.abandonOrder(orderId);
      if (supplierHoldId) await supplier.releaseHotelHold(supplierHoldId);
    });
    upsertSearchAttributes([{ key: Stage, value: 'failed' }]);
    throw childFailure(err) ?? err;
  }
  upsertSearchAttributes([{ key: Stage, value: 'done' }]);
  return { bookingId: input.bookingId, orderId };
}

/** Interface B's product order, settled at once: pay it (debit → fulfilment); a failed payment fails the order. */
export async function agencyProductOrder(input: AgencyPayment & { orderId: number }): Promise<{ orderId: number }> {
  try {
    await pay(input, input.orderId);
  } catch (err) {
    if (!(err instanceof ChildWorkflowFailure)) throw err;
    await CancellationScope.nonCancellable(() => ledger.abandonOrder(input.orderId));
    throw childFailure(err) ?? err;
  }
  return { orderId: input.orderId };
}
