import { createRoute, z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { hotelBookings } from '../../db/schema';
import { orderDocument, orderDocuments } from '../../domain/documents/catalogue';
import { DomainError, notFound } from '../../domain/errors';
import { rowIdOf } from '../../domain/ids';
import { readableBy } from '../../domain/orders';
import { attachment } from '../../domain/reports/csv';
import type { ApiDeps } from '../deps';
import { DOCUMENT_FILE, documentDeps, renderEntry } from '../documents';
import { documentPdf } from '../document-pdf';
import { opaque } from '../vocabulary';
import { agencyOperations, agencyRouter, bError, bErrors, bJson } from './router';

const DocumentEntry = z
  .object({
    kind: z.string().openapi({ example: 'voucher' }),
    title: z.string(),
    available: z.boolean(),
    reason: z.string().nullable(),
    number: z.string().nullable(),
    url: z.string().openapi({ example: '/v1/hotels/bookings/7/documents/voucher.pdf' }),
  })
  .openapi('AgencyDocument');
const Documents = z.object({ order_id: z.string(), documents: z.array(DocumentEntry) }).openapi('AgencyDocuments');

const File = z
  .string()
  .regex(DOCUMENT_FILE, 'must be a document kind and .pdf, e.g. voucher.pdf')
  .openapi({ param: { name: 'file', in: 'path' }, example: 'voucher.pdf' });
const BookingPath = z.object({ booking_id: opaque(20).openapi({ param: { name: 'booking_id', in: 'path' } }) });
const OrderPath = z.object({ order_id: opaque(20).openapi({ param: { name: 'order_id', in: 'path' } }) });
const pdf = { content: { 'application/pdf': { schema: z.string().openapi({ format: 'binary' }) } }, description: 'The document' };
const fileErrors = {
  401: bErrors[401],
  404: bError('No such booking or order of yours, or no such document'),
  409: bError('Not available yet: the detail says why'),
  422: bErrors[422],
};

const { get } = agencyOperations(['Documents']);
const listSummary = 'Its voucher, invoices and credit notes, each with whether it can be had and why not (extension)';

const routes = {
  bookingList: createRoute({
    ...get('/hotels/bookings/{booking_id}/documents', 'A booking’s documents', listSummary),
    request: { params: BookingPath },
    responses: { 200: bJson(Documents, 'The documents'), 401: bErrors[401], 404: bErrors[404], 409: bError('Not confirmed (yet)'), 422: bErrors[422] },
  }),
  bookingFile: createRoute({
    ...get('/hotels/bookings/{booking_id}/documents/{file}', 'One of a booking’s documents as a PDF (extension)'),
    request: { params: BookingPath.extend({ file: File }) },
    responses: { 200: pdf, ...fileErrors },
  }),
  orderList: createRoute({
    ...get('/products/orders/{order_id}/documents', 'An order’s documents', listSummary),
    request: { params: OrderPath },
    responses: { 200: bJson(Documents, 'The documents'), 401: bErrors[401], 404: bErrors[404], 422: bErrors[422] },
  }),
  orderFile: createRoute({
    ...get('/products/orders/{order_id}/documents/{file}', 'One of an order’s documents as a PDF (extension)'),
    request: { params: OrderPath.extend({ file: File }) },
    responses: { 200: pdf, ...fileErrors },
  }),
};

export function agencyDocumentRoutes(deps: ApiDeps) {
  const docs = documentDeps(deps);
  /** The order a booking of this agency, or of one of its sub-agencies, became; one never ordered has no documents yet. */
  const orderOfBooking = async (partnerId: number, raw: string) => {
    const id = rowIdOf(raw, 'booking');
    const [b] = await deps.db
      .select({ orderId: hotelBookings.orderId })
      .from(hotelBookings)
      .where(and(eq(hotelBookings.id, id), readableBy(partnerId, hotelBookings.partnerId)));
    if (!b) throw notFound(`booking ${raw}`);
    if (b.orderId === null) throw new DomainError('conflict', `booking ${raw} is not confirmed (yet): it has no documents`);
    return b.orderId;
  };
  const list = async (partnerId: number, orderId: number, base: string) => {
    const { order, documents } = await orderDocuments(docs, partnerId, orderId);
    return { order_id: String(order.id), documents: documents.map((e) => renderEntry(e, base)) };
  };
  const file = async (partnerId: number, orderId: number, name: string) => {
    const found = await orderDocument(docs, partnerId, orderId, DOCUMENT_FILE.exec(name)![1]!);
    return {
      bytes: new Uint8Array(await documentPdf(found.content, found.branding)),
      headers: { 'content-type': 'application/pdf', 'content-disposition': attachment(found.filename) },
    };
  };
  return agencyRouter()
    .openapi(routes.bookingList, async (c) => {
      const raw = c.req.valid('param').booking_id;
      const orderId = await orderOfBooking(c.get('partner').id, raw);
      return c.json(await list(c.get('partner').id, orderId, `/v1/hotels/bookings/${raw}/documents/`), 200);
    })
    .openapi(routes.bookingFile, async (c) => {
      const p = c.req.valid('param');
      const out = await file(c.get('partner').id, await orderOfBooking(c.get('partner').id, p.booking_id), p.file);
      return c.body(out.bytes, 200, out.headers);
    })
    .openapi(routes.orderList, async (c) => {
      const raw = c.req.valid('param').order_id;
      return c.json(await list(c.get('partner').id, rowIdOf(raw, 'order'), `/v1/products/orders/${raw}/documents/`), 200);
    })
    .openapi(routes.orderFile, async (c) => {
      const p = c.req.valid('param');
      const out = await file(c.get('partner').id, rowIdOf(p.order_id, 'order'), p.file);
      return c.body(out.bytes, 200, out.headers);
    });
}
