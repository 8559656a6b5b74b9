import { createRoute, z } from '@hono/zod-openapi';
import { orderDocument, orderDocuments, summaryContent } from '../../domain/documents/catalogue';
import { monthlySummary, snapshotOf, type MonthlySummary } from '../../domain/documents/finance';
import { issuerOf } from '../../domain/documents/issuer';
import { LOGO_TYPES, MAX_LOGO_BYTES, checkLogo } from '../../domain/documents/logo';
import { agencyLogo, agencyProfile, setLegalDetails, setLogo, type AgencyProfile } from '../../domain/documents/profile';
import { notFound } from '../../domain/errors';
import { rowIdOf } from '../../domain/ids';
import { formatDecimal } from '../../domain/money/money';
import { attachment } from '../../domain/reports/csv';
import type { ApiDeps } from '../deps';
import { DOCUMENT_FILE, documentDeps, renderEntry } from '../documents';
import { documentPdf } from '../document-pdf';
import { email, idString, text } from '../vocabulary';
import { ok } from './router';
import { partnerRouter } from './router';
import { commonErrors, Decimal, errorResponse, json, jsonBody, partnerOperations } from './schemas';

const DocumentEntry = z
  .object({
    kind: z.string().openapi({
      example: 'voucher',
      description:
        'voucher, itinerary-receipt or visa-receipt; invoice, credit-note (invoice-2, credit-note-2, … for later ones); to a parent agency reading its sub-agency’s order, also purchase-invoice, purchase-credit-note: what the company sold it of the order',
    }),
    title: z.string().openapi({ example: 'Hotel voucher' }),
    available: z.boolean(),
    reason: z.string().nullable().openapi({ example: 'the order is not paid yet', description: 'Why it cannot be had yet (null when available)' }),
    number: z.string().nullable().openapi({ example: 'OP-0000042', description: "A finance document's number" }),
    url: z.string().openapi({ example: '/api/partners/orders/12/documents/voucher.pdf' }),
  })
  .openapi('OrderDocument');

const OrderDocuments = z.object({ order_id: z.number().int(), service: z.string(), documents: z.array(DocumentEntry) }).openapi('OrderDocuments');

const FinanceDocument = z
  .object({
    number: z.string().openapi({ example: 'OP-0000042' }),
    sequence: z.number().int().openapi({ description: "The number in its issuer's sequence" }),
    kind: z.enum(['invoice', 'credit_note']),
    issuer: z.string().openapi({ example: 'operator', description: 'operator, or agency:ID for a parent agency’s invoices to its sub-agency' }),
    order_id: z.number().int(),
    date: z.string().openapi({ example: '2026-12-03', description: 'The day of the payment or refund (UTC)' }),
    issued_at: z.string(),
    total: Decimal,
    tax: Decimal,
    currency: z.string(),
  })
  .openapi('FinanceDocument');

export const InvoiceSummary = z
  .object({
    month: z.string().openapi({ example: '2026-12' }),
    documents: z.array(FinanceDocument),
    totals: z.array(z.object({ currency: z.string(), invoiced: Decimal, credited: Decimal, net: Decimal, tax: Decimal })),
  })
  .openapi('InvoiceSummary');

const LegalDetails = z
  .object({
    legal_name: text(200).openapi({ description: 'The name documents print for the agency' }),
    address: text(500).nullable().optional(),
    tax_id: text(100).nullable().optional(),
    registration_number: text(100).nullable().optional(),
    email: email().nullable().optional(),
    phone: text(40).nullable().optional(),
  })
  .openapi('AgencyLegalDetails');

const Profile = z
  .object({
    name: z.string().openapi({ description: "The partner's name (what documents show without a legal name)" }),
    legal_name: z.string().nullable(),
    address: z.string().nullable(),
    tax_id: z.string().nullable(),
    registration_number: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    logo: z.object({ type: z.enum(LOGO_TYPES), width: z.number().int(), height: z.number().int(), bytes: z.number().int() }).nullable(),
    updated_at: z.string().nullable(),
  })
  .openapi('AgencyProfile');

/** The month's invoices and credit notes as Interface A (and the operators' API) answer them. */
export function renderInvoiceSummary(summary: MonthlySummary): z.infer<typeof InvoiceSummary> {
  return {
    month: summary.month,
    documents: summary.documents.map((d) => {
      const s = snapshotOf(d);
      return {
        number: s.number,
        sequence: d.number,
        kind: d.kind,
        issuer: d.issuer,
        order_id: d.orderId,
        date: s.date,
        issued_at: d.issuedAt.toISOString(),
        total: formatDecimal(d.total, d.currency),
        tax: formatDecimal(s.tax.amount_minor, d.currency),
        currency: d.currency,
      };
    }),
    totals: summary.totals.map((t) => ({
      currency: t.currency,
      invoiced: formatDecimal(t.invoiced, t.currency),
      credited: formatDecimal(t.credited, t.currency),
      net: formatDecimal(t.net, t.currency),
      tax: formatDecimal(t.tax, t.currency),
    })),
  };
}

const renderProfile = (p: AgencyProfile): z.infer<typeof Profile> => ({
  name: p.partnerName,
  legal_name: p.legalName,
  address: p.address,
  tax_id: p.taxId,
  registration_number: p.registrationNumber,
  email: p.email,
  phone: p.phone,
  logo: p.logo as z.infer<typeof Profile>['logo'],
  updated_at: p.updatedAt?.toISOString() ?? null,
});

const OrderPath = z.object({ id: idString().openapi({ param: { name: 'id', in: 'path' }, example: '12' }) });
const FilePath = OrderPath.extend({
  file: z
    .string()
    .regex(DOCUMENT_FILE, 'must be a document kind and .pdf, e.g. voucher.pdf')
    .openapi({ param: { name: 'file', in: 'path' }, example: 'voucher.pdf', description: 'A kind of the list, and .pdf' }),
});
const pdf = (description: string) => ({ content: { 'application/pdf': { schema: z.string().openapi({ format: 'binary' }) } }, description });

const { get, post } = partnerOperations(['Documents']);

const routes = {
  list: createRoute({
    ...get(
      '/partners/orders/{id}/documents/',
      'An order’s documents',
      'Its traveller document (a voucher, a flight itinerary receipt or a visa application receipt), its invoices and its credit notes, each with whether it can be had and why not. Listing issues the invoice of a confirmed payment and the credit note of a refund, once. A sub-agency’s are issued by its parent; the parent reading the order also has the company’s invoices and credit notes to it for the order.',
    ),
    request: { params: OrderPath },
    responses: { 200: json(OrderDocuments, 'The documents'), ...commonErrors },
  }),
  file: createRoute({
    ...get('/partners/orders/{id}/documents/{file}', 'One of an order’s documents as a PDF'),
    request: { params: FilePath },
    responses: {
      200: pdf('The document'),
      ...commonErrors,
      404: errorResponse('No such order of yours, or no such document kind for its service'),
      409: errorResponse('Not available yet: the message says why'),
    },
  }),
  invoices: createRoute({
    ...get(
      '/partners/invoices/',
      'The invoices and credit notes of a month',
      'Every invoice and credit note of the month (by the day of its payment or refund, UTC), issued first where owed, with totals per currency; a parent agency’s include the company’s to it for its sub-agencies’ orders. `format=pdf`: the monthly invoice summary as a file.',
    ),
    request: {
      query: z.object({
        month: z.string({ error: 'is required (YYYY-MM)' }).openapi({ param: { name: 'month', in: 'query', required: true }, example: '2026-12' }),
        format: z
          .enum(['json', 'pdf'], { error: 'must be json or pdf' })
          .optional()
          .openapi({ param: { name: 'format', in: 'query' } }),
      }),
    },
    responses: {
      200: {
        description: 'The month’s documents: JSON in the envelope, or the summary as a PDF',
        content: {
          'application/json': { schema: z.object({ ok: z.literal(true), data: InvoiceSummary }) },
          'application/pdf': { schema: z.string().openapi({ format: 'binary' }) },
        },
      },
      ...commonErrors,
    },
  }),
  profile: createRoute({
    ...get('/partners/profile/', 'What the agency’s documents say of it', 'Its legal details and its logo (extension).'),
    responses: { 200: json(Profile, 'The profile'), ...commonErrors },
  }),
  setProfile: createRoute({
    ...post(
      '/partners/profile/',
      'Sets the agency’s legal details',
      'All of them at once: `legal_name` is required, another field left out or null is cleared. Documents issued before keep what they said.',
    ),
    request: { body: jsonBody(LegalDetails) },
    responses: { 200: json(Profile, 'The profile'), ...commonErrors },
  }),
  logo: createRoute({
    ...get('/partners/profile/logo', 'The agency’s logo as kept'),
    responses: {
      200: { content: { 'image/png': { schema: z.string().openapi({ format: 'binary' }) }, 'image/svg+xml': { schema: z.string() } }, description: 'The logo' },
      ...commonErrors,
    },
  }),
  setLogo: createRoute({
    ...post(
      '/partners/profile/logo',
      'Uploads the agency’s logo',
      `The image itself as the body, \`Content-Type: image/png\` or \`image/svg+xml\`, at most ${MAX_LOGO_BYTES / 1024} KiB. A PNG must decode and be at most 2000 pixels a side. An SVG is made safe; one with a script, an event handler, an embedded document or a reference outside itself is refused.`,
    ),
    request: {
      body: {
        content: { 'image/png': { schema: z.string().openapi({ format: 'binary' }) }, 'image/svg+xml': { schema: z.string() } },
        required: true,
      },
    },
    responses: {
      200: json(Profile, 'The profile with its new logo'),
      ...commonErrors,
      400: errorResponse('Not a PNG or SVG image that can be used: the message says why'),
      413: errorResponse(`Larger than ${MAX_LOGO_BYTES / 1024} KiB`),
      415: errorResponse('Content-Type is not image/png or image/svg+xml'),
    },
  }),
};

export function documentRoutes(deps: ApiDeps) {
  const docs = documentDeps(deps);
  return partnerRouter()
    .openapi(routes.list, async (c) => {
      const orderId = rowIdOf(c.req.valid('param').id, 'order');
      const { order, documents } = await orderDocuments(docs, c.get('partner').id, orderId);
      const base = `/api/partners/orders/${order.id}/documents/`;
      return ok(c, { order_id: order.id, service: order.service, documents: documents.map((e) => renderEntry(e, base)) });
    })
    .openapi(routes.file, async (c) => {
      const p = c.req.valid('param');
      const orderId = rowIdOf(p.id, 'order');
      const found = await orderDocument(docs, c.get('partner').id, orderId, DOCUMENT_FILE.exec(p.file)![1]!);
      const file = await documentPdf(found.content, found.branding);
      return c.body(new Uint8Array(file), 200, { 'content-type': 'application/pdf', 'content-disposition': attachment(found.filename) });
    })
    .openapi(routes.invoices, async (c) => {
      const q = c.req.valid('query');
      const partnerId = c.get('partner').id;
      const summary = await monthlySummary(deps.db, deps.documents, partnerId, q.month);
      if (q.format === 'pdf') {
        const issuer = await issuerOf(deps.db, deps.documents, partnerId);
        const file = await documentPdf(summaryContent(summary, issuer.party), null);
        return c.body(new Uint8Array(file), 200, {
          'content-type': 'application/pdf',
          'content-disposition': attachment(`invoices-${partnerId}-${q.month}.pdf`),
        });
      }
      return ok(c, renderInvoiceSummary(summary));
    })
    .openapi(routes.profile, async (c) => ok(c, renderProfile(await agencyProfile(deps.db, c.get('partner').id))))
    .openapi(routes.setProfile, async (c) => {
      const b = c.req.valid('json');
      const profile = await setLegalDetails(deps.db, c.get('partner').id, {
        legalName: b.legal_name,
        address: b.address ?? null,
        taxId: b.tax_id ?? null,
        registrationNumber: b.registration_number ?? null,
        email: b.email ?? null,
        phone: b.phone ?? null,
      });
      return ok(c, renderProfile(profile));
    })
    .openapi(routes.logo, async (c) => {
      const logo = await agencyLogo(deps.db, c.get('partner').id);
      if (!logo) throw notFound('logo');
      return c.body(new Uint8Array(logo.bytes), 200, {
        'content-type': logo.type,
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
        'x-content-type-options': 'nosniff',
      });
    })
    .openapi(routes.setLogo, async (c) => {
      const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (!(LOGO_TYPES as readonly string[]).includes(type))
        return c.json({ ok: false as const, error: 'Content-Type must be image/png or image/svg+xml' }, 415);
      const bytes = Buffer.from(await c.req.arrayBuffer());
      if (bytes.length > MAX_LOGO_BYTES) return c.json({ ok: false as const, error: `the logo is larger than ${MAX_LOGO_BYTES / 1024} KiB` }, 413);
      return ok(c, renderProfile(await setLogo(deps.db, c.get('partner').id, checkLogo(type, bytes))));
    });
}
