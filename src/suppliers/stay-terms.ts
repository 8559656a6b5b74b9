import { z } from 'zod';

/**
 * The terms of a hotel rate's stay under the specification's names: what the bedbank answers
 * (./contract-checks.ts) and what the partner API shows of a checked rate (src/http/partner/hotels.routes.ts)
 * are the same fields, checked once.
 */
export const stayTerms = {
  hotel_id: z.number().int(),
  hotel_name: z.string(),
  city_id: z.number().int(),
  room_name: z.string(),
  board: z.string(),
  refundable: z.boolean(),
  check_in: z.string(),
  check_out: z.string(),
};
