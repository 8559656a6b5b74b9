import type { PlacedHold } from '../workflows/hotel.types';
import type { Db } from '../src/db/client';
import * as cancellation from '../src/domain/hotels/cancellation';
import {
  bookingByConfirmation,
  bookingByHoldId,
  bookingById,
  expireHoldIfDue,
  markBookingFailed,
  recordHold,
  type HoldCheck,
} from '../src/domain/hotels/bookings';
import type { GuestDetails } from '../src/domain/hotels/guests';
import type { PlaceHoldInput } from '../workflows/hotel.types';
import { SupplierRejectedError } from '../src/suppliers/errors';
import type { HotelSupplier, StayHold } from '../src/suppliers/hotels';
import { pricingIn, type PricingDeps } from '../src/domain/money/pricing';
import { pricerForBooking, supplierPriceOf } from '../src/domain/money/supplier-price';
import { hotelMarkup, walletPolicy } from '../src/domain/hotels/prices';
import { markupOfRule } from '../src/domain/money/markup-rules';
import { withScenario } from '../src/sandbox/context';
import { FailureType } from '../workflows/failure-types';
import { runActivityStep } from './failures';

const refused = () => FailureType.holdRefused;

/** Hotel holds and cancellations: every call that changes something at the bedbank. */
export function hotelActivities(db: Db, supplierOf: (name: string) => HotelSupplier, pricing: PricingDeps) {
  /** The bedbank that holds a booking (its recorded supplier), found by what the step names. */
  const holderOf = async (found: Promise<{ supplier: string } | undefined>) => supplierOf((await found)?.supplier ?? 'simulator');

  return {
    /** Places the supplier hold for a booking (or gives it its guests) and records the answer at the partner's price. */
    placeHotelHold: (input: PlaceHoldInput) =>
      runActivityStep(async (): Promise<PlacedHold> => {
        const booking = await bookingById(db, input.bookingId);
        const supplier = supplierOf(booking.supplier);
        // Priced in the currency the booking was made in: its partner's wallet's.
        const inWallet = pricingIn(pricing, booking.currency);
        const priced = async (hold: StayHold) => {
          const now = new Date();
          const pricer = await pricerForBooking(inWallet, booking, [hold.total, ...hold.cancellation_timeline.map((s) => s.penalty)], hold.total, now);
          // A new hold takes the rule in force; guests given to a prebook keep the rule it was priced with.
          const markup =
            input.mode === 'create'
              ? await hotelMarkup(inWallet, { partnerId: booking.partnerId, supplier: booking.supplier }, now)
              : await markupOfRule(db, booking.pricingRuleId, { partnerId: booking.partnerId, service: 'hotels' });
          return {
            parts: markup.price(pricer.minor(hold.total)),
            policy: walletPolicy(pricer, hold.cancellation_timeline),
            supplier: supplierPriceOf(pricer, hold.total),
          };
        };
        try {
          let row;
          if (input.mode === 'create') {
            const hold = await withScenario(input.scenario, () =>
              supplier.hold({
                rateId: booking.rateKey,
                clientReference: input.clientReference,
                guests: (booking.guests as GuestDetails[][] | null) ?? undefined,
                contact: booking.contact ?? undefined,
              }),
            );
            row = await recordHold(db, booking.id, hold, await priced(hold));
          } else {
            const hold = await supplier.addGuests(booking.supplierHoldId!, input.guests, input.contact);
            row = await recordHold(db, booking.id, hold, await priced(hold), { guests: input.guests, contact: input.contact });
          }
          return {
            bookingId: row.id,
            status: row.status as 'prebooked' | 'held',
            expiresAt: row.expiresAt!.getTime(),
            totalPriceMinor: row.totalPrice!,
            currency: row.currency,
          };
        } catch (err) {
          if (err instanceof SupplierRejectedError && input.mode === 'create') await markBookingFailed(db, booking.id, err.message);
          throw err;
        }
      }, refused),

    /** The hold timer fired: expire the booking if its deadline passed unpaid, or answer the new deadline. */
    expireHotelHold: (bookingId: number): Promise<HoldCheck> => runActivityStep(() => expireHoldIfDue(db, bookingId, new Date())),

    /** Gives the held rooms back to the hotel; a hold the supplier already dropped is fine. */
    releaseHotelHold: (holdId: string) =>
      runActivityStep(async () => {
        try {
          return { status: (await (await holderOf(bookingByHoldId(db, holdId))).release(holdId)).status };
        } catch (err) {
          if (err instanceof SupplierRejectedError && (err.status === 404 || err.status === 410)) return { status: 'gone' };
          throw err;
        }
      }),

    beginHotelCancellation: (orderId: number) => runActivityStep(() => cancellation.beginCancellation(db, orderId)),

    cancelAtSupplier: (input: { confirmationNumber: string; clientReference: string; scenario?: string }) =>
      runActivityStep(
        () =>
          withScenario(input.scenario, async () => ({
            status: (
              await (
                await holderOf(bookingByConfirmation(db, input.confirmationNumber))
              ).cancel(input.confirmationNumber, { clientReference: input.clientReference })
            ).status,
          })),
        () => FailureType.cancelRejected,
      ),

    completeHotelCancellation: (input: Parameters<typeof cancellation.completeCancellation>[1]) =>
      runActivityStep(() => cancellation.completeCancellation(db, input)),
  };
}
