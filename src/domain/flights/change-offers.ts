import { z } from 'zod';
import { isSealed, type SecretBox } from '../../platform/secret-box';
import { validation } from '../errors';

/**
 * What the engine hands a partner as a `change_offer_id`: the airline's change offer, sealed
 * with the price the partner was shown in its wallet's currency, for the order it changes
 * and until the airline's offer expires. The partner can neither read the airline's amount
 * nor change the price; the confirmation pays what was sealed while the airline still asks
 * what it asked then.
 */
export interface SealedChangeOffer {
  orderId: number;
  /** The airline's change offer. */
  id: string;
  /** What the airline charges for the change (negative: refunds), in its own currency. */
  supplier: { amount_minor: number; currency: string };
  /** The change's parts in the wallet's currency: the airline's total (signed), its penalty, the engine's fee, and the parent agency's share of the fee. */
  netMinor: number;
  penaltyMinor: number;
  feeMinor: number;
  agencyFeeMinor: number;
  ruleId: number | null;
  currency: string;
  expiresAt: string;
  remove: number[];
}

const PURPOSE = 'flight-change-offer:v1:';

const Sealed = z.object({
  orderId: z.number().int(),
  id: z.string().min(1),
  supplier: z.object({ amount_minor: z.number().int(), currency: z.string() }),
  netMinor: z.number().int(),
  penaltyMinor: z.number().int(),
  feeMinor: z.number().int(),
  agencyFeeMinor: z.number().int(),
  ruleId: z.number().int().nullable(),
  currency: z.string(),
  expiresAt: z.string(),
  remove: z.array(z.number().int()),
});

export const sealChangeOffer = (codes: SecretBox, offer: SealedChangeOffer): string => codes.seal(PURPOSE + JSON.stringify(offer));

/** The offer a partner's `change_offer_id` seals; refused naming the field when this engine did not seal it. */
export function openChangeOffer(codes: SecretBox, code: string): SealedChangeOffer {
  const refused = validation('change_offer_id', 'is not one this engine gave, or has been changed; ask for the change again (air_change_request)');
  if (!isSealed(code)) throw refused;
  let plain: string;
  try {
    plain = codes.open(code);
  } catch {
    throw refused;
  }
  if (!plain.startsWith(PURPOSE)) throw refused;
  let json: unknown;
  try {
    json = JSON.parse(plain.slice(PURPOSE.length));
  } catch {
    throw refused;
  }
  const parsed = Sealed.safeParse(json);
  if (!parsed.success) throw refused;
  return parsed.data;
}
