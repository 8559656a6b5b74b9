import type { HeldDates } from '../workflows/residence.types';
import type { Db } from '../src/db/client';
import { completeStay } from '../src/domain/residence/booking';
import { requestCancel, settleCancellation } from '../src/domain/residence/cancellation';
import { expireHoldIfDue } from '../src/domain/residence/expiry';
import { holdDates, type HoldDatesInput } from '../src/domain/residence/holds';
import type { CatalogueSettings } from '../src/domain/money/markup-rules';
import { currentStay, modifyStay, undoStayChange } from '../src/domain/residence/modification';
import type { ConfirmingSupplier } from '../src/suppliers/confirmations';
import { FailureType } from '../workflows/failure-types';
import { runActivityStep } from './failures';

export interface AmendAtHostInput {
  confirmationNumber: string;
  checkIn: string;
  checkOut: string;
  guests: number;
  /** Sandbox: what the simulated host does with the change. */
  scenario?: string;
}

/** A stay as its host holds it (a field the host did not say is null). */
export interface StayAtHost {
  status: 'confirmed' | 'cancelled';
  checkIn: string | null;
  checkOut: string | null;
  guests: number | null;
}

/** Residence reservations: our date holds (database) and what the host is told. */
export function residenceActivities(db: Db, host: ConfirmingSupplier, catalogue: CatalogueSettings) {
  return {
    holdResidenceDates: (input: HoldDatesInput) =>
      runActivityStep(async (): Promise<HeldDates> => {
        const r = await holdDates(db, input, catalogue);
        return { reservationId: r.id, expiresAt: r.expiresAt.getTime() };
      }),
    expireResidenceHold: (id: number) => runActivityStep(() => expireHoldIfDue(db, id, new Date())),
    requestResidenceCancel: (id: number) => runActivityStep(() => requestCancel(db, id, new Date())),
    settleResidenceCancel: (input: Parameters<typeof settleCancellation>[1]) => runActivityStep(() => settleCancellation(db, input)),
    completeResidenceStay: (id: number) => runActivityStep(() => completeStay(db, id)),
    residenceStay: (id: number) => runActivityStep(() => currentStay(db, id)),
    modifyResidenceStay: (input: Parameters<typeof modifyStay>[1]) => runActivityStep(() => modifyStay(db, input, catalogue)),
    undoResidenceStayChange: (input: Parameters<typeof undoStayChange>[1]) => runActivityStep(() => undoStayChange(db, input, catalogue)),
    /** Tells the host about a change of dates or guests. */
    amendAtHost: (input: AmendAtHostInput) =>
      runActivityStep(async () => {
        await host.amend(input.confirmationNumber, { check_in: input.checkIn, check_out: input.checkOut, guests: input.guests }, input.scenario);
      }),
    /** The stay the host holds now under its confirmation number; null when the host knows no such reservation. */
    stayAtHost: (input: { confirmationNumber: string; scenario?: string }) =>
      runActivityStep(async (): Promise<StayAtHost | null> => {
        const held = await host.read(input.confirmationNumber, input.scenario);
        if (!held) return null;
        const now = held.current ?? {};
        return {
          status: held.status,
          checkIn: typeof now.check_in === 'string' ? now.check_in : null,
          checkOut: typeof now.check_out === 'string' ? now.check_out : null,
          guests: typeof now.guests === 'number' ? now.guests : null,
        };
      }),
    cancelAtHost: (input: { confirmationNumber: string }) =>
      runActivityStep(
        async () => {
          await host.cancel(input.confirmationNumber);
        },
        () => FailureType.cancelRejected,
      ),
  };
}
