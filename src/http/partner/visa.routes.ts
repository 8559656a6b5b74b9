import { createRoute, z } from '@hono/zod-openapi';
import { formatDecimal } from '../../domain/money/money';
import { listVisas, visaById, type VisaRow } from '../../domain/visa/applications';
import * as visas from '../../domain/visa/service';
import type { VisaOrder } from '../../domain/visa/service';
import { partnerPricing, type ApiDeps } from '../deps';
import type { Markup } from '../../domain/money/markup';
import { ownMarkup } from '../../domain/money/markup-rules';
import { created, ok, partnerRouter } from './router';
import { bodyId, calendarDate, country, countryFilter, email, passportNumber, phone, text } from '../vocabulary';
import { embassyDecisionOf, sandboxScenario } from '../sandbox-scenario';
import { commonErrors, Decimal, Id, json, jsonBody, partnerOperations, renderTravelOrder, TravelOrder } from './schemas';
import { page, PageQuery, parsePage, renderPage } from './paging';

const TripDate = calendarDate('travel');
const Country = country();

const Visa = z
  .object({
    id: z.number().int(),
    code: z.string(),
    country: z.string(),
    country_name: z.string(),
    visa_type: z.string(),
    title: z.string(),
    description: z.string(),
    processing_days: z.number().int(),
    validity_days: z.number().int(),
    max_stay_days: z.number().int(),
    entries: z.string(),
    price: Decimal.openapi({ description: 'What the partner pays: service fee + government fee' }),
    service_fee: Decimal,
    government_fee: Decimal,
    refund_on_rejection_percent: z.number().int().openapi({ description: 'Share of the service fee refunded if the visa is refused' }),
    required_documents: z.array(z.string()),
    currency: z.string(),
  })
  .openapi('VisaProduct');

const RequestBody = z
  .object({
    visa_id: bodyId(),
    applicant: z.object({
      first_name: text(100),
      last_name: text(100),
      birth_date: calendarDate('birth'),
      gender: z.enum(['male', 'female'], { error: 'must be male or female' }),
      nationality: Country,
      passport_number: passportNumber(),
      passport_expiry_date: calendarDate('document'),
      email: email().optional(),
      phone_number: phone().optional(),
    }),
    travel: z.object({ from: TripDate, to: TripDate }),
    documents: z
      .array(z.object({ type: text(50), reference: text(300) }))
      .min(1)
      .max(30)
      .openapi({ description: 'References to documents the partner holds (scans); "passport" and "photo" are always required' }),
  })
  .openapi('VisaRequest');

const Application = z
  .object({
    order_id: z.number().int(),
    application_id: z.number().int(),
    visa_id: z.number().int(),
    status: z.enum(['draft', 'submitted', 'under_review', 'approved', 'rejected']),
    order_status: z.string(),
    total_price: Decimal,
    currency: z.string(),
    applicant: z.record(z.string(), z.unknown()),
    travel: z.object({ from: z.string(), to: z.string() }),
    documents: z.array(z.object({ type: z.string(), reference: z.string() })),
    supplier_reference: z.string().nullable(),
    decision_reason: z.string().nullable(),
    decided_at: z.string().nullable(),
  })
  .openapi('VisaApplication');

function renderVisa(v: VisaRow, currency: string, markup: Markup): z.infer<typeof Visa> {
  // The margin is part of the service fee: the government's fee is passed on as it is.
  const price = markup.sell(v.serviceFee + v.governmentFee);
  return {
    id: v.id,
    code: v.code,
    country: v.country,
    country_name: v.countryName,
    visa_type: v.visaType,
    title: v.title,
    description: v.description,
    processing_days: v.processingDays,
    validity_days: v.validityDays,
    max_stay_days: v.maxStayDays,
    entries: v.entries,
    price: formatDecimal(price, currency),
    service_fee: formatDecimal(price - v.governmentFee, currency),
    government_fee: formatDecimal(v.governmentFee, currency),
    refund_on_rejection_percent: v.refundOnRejectionPercent,
    required_documents: v.requiredDocuments,
    currency,
  };
}

function renderApplication({ order, application: a }: VisaOrder): z.infer<typeof Application> {
  return {
    order_id: order.id,
    application_id: a.id,
    visa_id: a.visaProductId,
    status: a.status,
    order_status: order.status,
    total_price: formatDecimal(order.totalPrice, order.currency),
    currency: order.currency,
    applicant: a.applicant,
    travel: { from: a.travelFrom, to: a.travelTo },
    documents: a.documents,
    supplier_reference: a.supplierReference,
    decision_reason: a.decisionReason,
    decided_at: a.decidedAt?.toISOString() ?? null,
  };
}

const tags = ['Visa'];
const { get, post } = partnerOperations(tags);

const routes = {
  list: createRoute({
    ...get('/visa/', 'Visa products'),
    request: { query: PageQuery.extend({ country: countryFilter().optional(), visa_type: text(20, { blank: true }).optional() }) },
    responses: { 200: json(page(Visa), 'A page of visa products'), ...commonErrors },
  }),
  detail: createRoute({
    ...get('/visa/{id}/', 'A visa product'),
    request: { params: Id('id') },
    responses: { 200: json(Visa, 'The product'), ...commonErrors },
  }),
  request: createRoute({
    ...post(
      '/visa/request/',
      'Apply: creates the travel order to pay; paying submits the application',
      'Sandbox: the embassy decides the paid application by itself after a short delay, approving it unless the X-Sandbox-Scenario header says visa_reject.',
    ),
    request: {
      body: jsonBody(RequestBody),
      headers: sandboxScenario('visaRequest'),
    },
    responses: {
      201: json(TravelOrder.extend({ application: Application }), 'The pending order and its application'),
      ...commonErrors,
    },
  }),
  status: createRoute({
    ...get('/visa/requests/{id}/', 'An application’s status by its order id (extension)'),
    request: { params: Id('id') },
    responses: { 200: json(Application, 'The application'), ...commonErrors },
  }),
};

export function visaRoutes(deps: ApiDeps) {
  return partnerRouter()
    .openapi(routes.list, async (c) => {
      const q = c.req.valid('query');
      const found = await listVisas(deps.db, { country: q.country, visa_type: q.visa_type, page: parsePage(q.page) });
      const markup = await ownMarkup(partnerPricing(deps, c.get('partner')), 'visa', c.get('partner').id);
      return ok(
        c,
        renderPage(found, c.req.url, (v) => renderVisa(v, c.get('partner').currency, markup)),
      );
    })
    .openapi(routes.detail, async (c) =>
      ok(
        c,
        renderVisa(
          await visaById(deps.db, Number(c.req.valid('param').id)),
          c.get('partner').currency,
          await ownMarkup(partnerPricing(deps, c.get('partner')), 'visa', c.get('partner').id),
        ),
      ),
    )
    .openapi(routes.request, async (c) => {
      const data = await visas.requestVisa(
        deps.db,
        c.get('partner'),
        c.req.valid('json'),
        partnerPricing(deps, c.get('partner')),
        embassyDecisionOf(deps, c.req.valid('header')),
      );
      return created(c, { ...renderTravelOrder(data.order), application: renderApplication(data) });
    })
    .openapi(routes.status, async (c) => ok(c, renderApplication(await visas.applicationStatus(deps.db, c.get('partner'), Number(c.req.valid('param').id)))));
}
