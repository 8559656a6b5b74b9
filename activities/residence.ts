import type { Db } from '../src/db/client';
import * as res from '../src/domain/residence/reservations';
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
    holdResidenceDates: (input: res.HoldDatesInput) =>
      businessErrors(async (): Promise<HeldDates> => {
        const r = await res.holdDates(db, input);
        return { reservationId: r.id, expiresAt: r.expiresAt.getTime() };
      }),
    expireResidenceHold: (id: number) => businessErrors(() => res.expireHoldIfDue(db, id, new Date())),
    requestResidenceCancel: (id: number) => businessErrors(() => res.requestCancel(db, id, new Date())),
    settleResidenceCancel: (input: Parameters<typeof res.settleCancellation>[1]) => businessErrors(() => res.settleCancellation(db, input)),
    completeResidenceStay: (id: number) => businessErrors(() => res.completeStay(db, id)),
    modifyResidenceStay: (input: Parameters<typeof res.modifyStay>[1]) => businessErrors(() => res.modifyStay(db, input)),
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
