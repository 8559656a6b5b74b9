import { createRoute, z } from '@hono/zod-openapi';
import type { Db, DbOrTx } from '../../db/client';
import { operatorActions } from '../../db/schema';
import { notFound } from '../../domain/errors';
import { isStorableId } from '../../domain/ids';
import { eraseOrder, eraseTraveller, orderHasTravellers, travellerDigest } from '../../domain/privacy';
import { operatorOf } from './actions';
import { adminOperations, adminRouter } from './router';
import { json, jsonBody, notFoundResponse } from './schemas';

/** Either an order or a traveller, by passport number or national id. */
const EraseBody = z
  .object({
    order_id: z.number().int().positive().optional().openapi({ description: "Erase the personal data of this order's bookings" }),
    traveller: z
      .string()
      .trim()
      .min(5, 'a passport number or national id (at least 5 characters)')
      .max(40)
      .optional()
      .openapi({ description: 'Erase the personal data of every booking naming this passport number or national id' }),
    reason: z.string().trim().min(3, 'say why (at least 3 characters)').max(1000),
  })
  .strict()
  .refine((b) => (b.order_id === undefined) !== (b.traveller === undefined), { message: 'give order_id or traveller, not both' })
  .openapi('EraseRequest');

const route = createRoute({
  ...adminOperations(['Privacy']).post(
    '/admin/privacy/erase',
    "Erase a data subject's personal data",
    "An order's bookings, or every booking naming a traveller; audited with the reason, the traveller named by a digest only. The same request again finishes one cut short.",
  ),
  request: { body: jsonBody(EraseBody) },
  responses: {
    200: json(
      z.object({
        target: z.string().openapi({ example: 'orders/12' }),
        erased: z.record(z.string(), z.number().int()).openapi({ description: 'Rows erased, by kind of booking' }),
        bookings: z.number().int(),
      }),
      'Erased',
    ),
    ...notFoundResponse,
  },
});

/**
 * A data subject's request (docs/operations.md, "Travellers' personal data"): erases the
 * personal data of an order's bookings, or of every booking naming a traveller. Audited
 * with the operator and the reason; a traveller is named in the audit by a digest of the
 * identifier, never by the identifier itself.
 */
export function privacyRoutes(deps: { db: Db }) {
  const { db } = deps;
  return adminRouter().openapi(route, async (c) => {
    const b = c.req.valid('json');
    if (b.order_id !== undefined && (!isStorableId(b.order_id) || !(await orderHasTravellers(db, b.order_id)))) {
      throw notFound(`order ${b.order_id} with travellers`);
    }
    const target = b.order_id !== undefined ? `orders/${b.order_id}` : `travellers/${travellerDigest(b.traveller!)}`;
    const audit = (tx: DbOrTx) =>
      tx.insert(operatorActions).values({
        operator: operatorOf(c),
        action: 'privacy/erase',
        target,
        reason: b.reason,
        details: b.order_id !== undefined ? { order_id: b.order_id } : { traveller_digest: travellerDigest(b.traveller!) },
      });
    // An order's bookings are erased with their audit row, in one transaction. A traveller's
    // search runs in batches: its audit row comes first, and the same request again finishes
    // one that was cut short.
    const erased =
      b.order_id !== undefined
        ? await db.transaction(async (tx) => {
            await audit(tx);
            return eraseOrder(tx, b.order_id!);
          })
        : await audit(db).then(() => eraseTraveller(db, b.traveller!));
    return c.json({ target, erased, bookings: Object.values(erased).reduce((a, n) => a + n, 0) }, 200);
  });
}
