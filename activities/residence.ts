import type { Db } from '../src/db/client';
import { completeStay } from '../src/domain/residence/booking';
import { requestCancel, settleCancellation } from '../src/domain/residence/cancellation';
import { expireHoldIfDue } from '../src/domain/residence/expiry';
import { holdDates, type HoldDatesInput } from '../src/domain/residence/holds';
import { currentStay, modifyStay, undoStayChange } from '../src/domain/residence/modification';
import type { ConfirmingSupplier } from '../src/suppliers/confirmations';
import { FailureType } from '../workflows/failure-types';
import { businessErrors } from './failures';

export interface HeldDates {
  reservationId: number;
  expiresAt: number;
}

/** Residence reservations: our date holds (database) and what the host is told. */
export function residenceActivities(db: Db, host: ConfirmingSupplier) {
  return {
    holdResidenceDates: (input: HoldDatesInput) =>
      businessErrors(async (): Promise<HeldDates> => {
        const r = await holdDates(db, input);
        return { reservationId: r.id, expiresAt: r.expiresAt.getTime() };
      }),
    expireResidenceHold: (id: number) => businessErrors(() => expireHoldIfDue(db, id, new Date())),
    requestResidenceCancel: (id: number) => businessErrors(() => requestCancel(db, id, new Date())),
    settleResidenceCancel: (input: Parameters<typeof settleCancellation>[1]) => businessErrors(() => settleCancellation(db, input)),
    completeResidenceStay: (id: number) => businessErrors(() => completeStay(db, id)),
    residenceStay: (id: number) => businessErrors(() => currentStay(db, id)),
    modifyResidenceStay: (input: Parameters<typeof modifyStay>[1]) => businessErrors(() => modifyStay(db, input)),
    undoResidenceStayChange: (input: Parameters<typeof undoStayChange>[1]) => businessErrors(() => undoStayChange(db, input)),
    /** Tells the host about a change of dates or guests. */
    amendAtHost: (input: { confirmationNumber: string; checkIn: string; checkOut: string; guests: number }) =>
      businessErrors(async () => {
        await host.amend(input.confirmationNumber, { check_in: input.checkIn, check_out: input.checkOut, guests: input.guests });
      }),
    cancelAtHost: (input: { confirmationNumber: string }) =>
      businessErrors(
        async () => {
          await host.cancel(input.confirmationNumber);
        },
        () => FailureType.cancelRejected,
      ),
  };
}
