import { ApplicationFailure, ChildWorkflowFailure, executeChild, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { BookingActivities } from '../activities';
import { DATABASE_STEP, SUPPLIER_STEP } from './activity-options';
import type { AgencyPayment } from './agency.types';
import { holdWorkflowId } from './hotel.types';
import { placeHotelHold } from './hotel.workflows';
import { PAY_START_ATTRIBUTES, payWorkflowId } from './pay.types';
import { payOrder } from './pay.workflow';
import { Saga } from './saga';
import { OrderId, OrderStatus, Stage } from './search-attributes';
import { setStage } from './steps';

const database = proxyActivities<BookingActivities>(DATABASE_STEP);
const supplier = proxyActivities<BookingActivities>(SUPPLIER_STEP);

/** A child's failure raised as this workflow's own: the typed business failure inside it, else as it came. */
function raiseAsOwn(err: unknown): never {
  for (let cause: unknown = err; cause instanceof Error; cause = (cause as Error & { cause?: unknown }).cause) {
    if (cause instanceof ApplicationFailure && cause.type) throw ApplicationFailure.nonRetryable(cause.message, cause.type);
  }
  throw err;
}

/** The child payment. Interface B's order exists only to be paid now: a failed payment fails it (PayInput.failsOrder). */
async function pay(input: AgencyPayment, orderId: number) {
  return executeChild(payOrder, {
    workflowId: payWorkflowId(input.partnerId, { orderId }),
    typedSearchAttributes: [
      { key: Stage, value: PAY_START_ATTRIBUTES.stage },
      { key: OrderStatus, value: PAY_START_ATTRIBUTES.orderStatus },
    ],
    args: [{ partnerId: input.partnerId, orderId, ...(input.scenario ? { scenario: input.scenario } : {}), failsOrder: true }],
  });
}

/**
 * The saga's last step: pay the order. A failed payment runs the saga's undos and fails this
 * workflow with the payment's failure, its Stage `failed` with the order's status as the undos
 * left it (`endedAs`); a paid one ends `Stage = done, OrderStatus = completed`.
 */
async function payLast<S extends string>(saga: Saga<S | 'pay'>, input: AgencyPayment, orderId: number, endedAs: () => string | undefined): Promise<void> {
  try {
    await saga.step('pay', () => pay(input, orderId));
  } catch (err) {
    if (!(err instanceof ChildWorkflowFailure)) throw err;
    setStage('compensating');
    await saga.compensate();
    setStage('failed', endedAs());
    raiseAsOwn(err);
  }
  setStage('done', 'completed');
}

/**
 * Interface B creates a hotel booking settled at once, a saga: hold the room → create the
 * order (undo: fail the order and release the room) → pay it (the payment saga, a child:
 * debit → confirm with the hotel). A failed payment has already given the money back and
 * failed the order; this one then undoes the order and the hold and fails with the
 * payment's failure. It shows where it is: `Stage = holding`, then, once it has an order
 * (`OrderId`), `debiting` while its child pays; it ends in `Stage = done, OrderStatus =
 * completed`, or `Stage = failed` with the status the undo left the order in (`failed`),
 * or `Stage = failed` with no order when the room could not be held.
 */
export async function agencyHotelBooking(input: AgencyPayment & { bookingId: number }): Promise<{ bookingId: number; orderId: number }> {
  const saga = new Saga<'hold' | 'order' | 'pay'>();
  setStage('holding');
  await saga
    .step('hold', () =>
      executeChild(placeHotelHold, {
        workflowId: holdWorkflowId(input.bookingId, 'create'),
        args: [{ mode: 'create', bookingId: input.bookingId, clientReference: `hotel-hold:b${input.bookingId}` }],
      }),
    )
    .catch((err: unknown) => {
      // The room could not be held: nothing was ordered or paid.
      setStage('failed');
      raiseAsOwn(err);
    });
  const { orderId } = await saga.step('order', () => database.orderAgencyBooking({ partnerId: input.partnerId, bookingId: input.bookingId }));
  // Its undo needs the order: the order fails, and the room it held (if still held) is released.
  let abandonedAs: string | undefined;
  saga.undo(async () => {
    const { supplierHoldId, status } = await database.abandonOrder(orderId);
    abandonedAs = status;
    if (supplierHoldId) await supplier.releaseHotelHold(supplierHoldId);
  });
  upsertSearchAttributes([
    { key: OrderId, value: orderId },
    { key: Stage, value: 'debiting' },
  ]);
  await payLast(saga, input, orderId, () => abandonedAs);
  return { bookingId: input.bookingId, orderId };
}

/**
 * Interface B's product order, settled at once, a saga of one step: pay it (the payment
 * saga: debit → fulfilment; undo: fail the order). It ends as its child payment and the
 * order row do: `Stage = done, OrderStatus = completed`, or `Stage = failed, OrderStatus =
 * failed`.
 */
export async function agencyProductOrder(input: AgencyPayment & { orderId: number }): Promise<{ orderId: number }> {
  const saga = new Saga<'pay'>();
  let abandonedAs: string | undefined;
  saga.undo(async () => {
    abandonedAs = (await database.abandonOrder(input.orderId)).status;
  });
  await payLast(saga, input, input.orderId, () => abandonedAs);
  return { orderId: input.orderId };
}
