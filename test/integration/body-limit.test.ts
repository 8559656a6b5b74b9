import { eq } from 'drizzle-orm';
import { ledgerEntries, orders } from '../../src/db/schema';
import { MAX_BODY_BYTES } from '../../src/http/body-limit';
import { call, newPartner } from '../support/clients';
import { type TestStack, useStack } from '../support/stack';

/** A body larger than either interface reads is refused with 413 in the interface's shape, before anything is done. */

let stack: TestStack;
useStack((s) => (stack = s));

const huge = (bytes: number, orderId = 1) => JSON.stringify({ product_order_id: orderId, idempotency_key: 'k', padding: 'x'.repeat(bytes) });

describe('request body limit', () => {
  it('Interface A answers 413 {ok:false,error} for a 5 MB pay body and moves no money', async () => {
    const { creds, api } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const res = await call(stack.app, 'POST', '/api/partners/pay/', { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret, 'content-type': 'application/json' }, huge(5 * 1024 * 1024, order.id));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ ok: false, error: expect.stringContaining(`${MAX_BODY_BYTES / 1024} KiB`) });
    expect(await stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, order.id))).toEqual([]);
    // Just under the limit, the body is read and judged as usual (an order that does not exist: 400).
    const under = await call(stack.app, 'POST', '/api/partners/pay/', { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret, 'content-type': 'application/json' }, huge(MAX_BODY_BYTES - 1024, 999_999));
    expect(under.status).toBe(400);
  });

  it('Interface B answers 413 in FastAPI list form and writes no order', async () => {
    const { creds } = await newPartner(stack, '0', '5000000');
    const res = await call(stack.app, 'POST', '/v1/products/orders', { authorization: `Bearer ${creds.agency_key}`, 'content-type': 'application/json' }, huge(5 * 1024 * 1024));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: [{ loc: ['body'], msg: expect.any(String), type: 'body_too_large' }] });
    expect(await stack.db.select().from(orders).where(eq(orders.partnerId, creds.partner_id))).toEqual([]);
  });
});
