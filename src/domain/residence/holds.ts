import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { reservations } from '../../db/schema';
import { assertFree, lockProperty } from './availability';
import { sellStay } from './pricing';
import { priceColumns } from '../money/markup';
import { ownMarkup, type CatalogueSettings } from '../money/markup-rules';
import type { ReservationRow } from './reservations';
import { checkStay } from './stay-rules';
import { actorNow } from '../../platform/request-context';
import type { HoldDatesInput } from '../../../workflows/residence.types';

/**
 * Holds the dates: the property row is locked, so two reservations of overlapping dates
 * serialise here and the second sees the first. Keyed by the workflow's hold reference.
 */
export async function holdDates(db: DbOrTx, input: HoldDatesInput, catalogue: CatalogueSettings): Promise<ReservationRow> {
  // An input that names no currency (none the API starts) is in the engine's.
  const currency = input.currency ?? catalogue.catalogueCurrency;
  const markup = await ownMarkup({ ...catalogue, db, currency }, 'residence', input.partnerId);
  return db.transaction(async (tx) => {
    const [existing] = await tx.select().from(reservations).where(eq(reservations.holdRef, input.holdRef));
    if (existing) return existing;
    const p = await lockProperty(tx, input.propertyId);
    checkStay(p, input.checkIn, input.checkOut, input.guests, new Date());
    await assertFree(tx, p.id, input.checkIn, input.checkOut);
    const price = sellStay(p, markup, input.checkIn, input.checkOut);
    const [row] = await tx
      .insert(reservations)
      .values({
        partnerId: input.partnerId,
        createdBy: actorNow(),
        holdRef: input.holdRef,
        propertyId: p.id,
        checkIn: input.checkIn,
        checkOut: input.checkOut,
        guests: input.guests,
        leadGuest: input.leadGuest,
        totalPrice: price.sellMinor,
        ...priceColumns(price),
        currency,
        expiresAt: new Date(Date.now() + input.ttlMs),
      })
      .returning();
    return row!;
  });
}

export type { HoldDatesInput };
