import { and, asc, count, eq, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { orders, visaApplications, visaProducts } from '../../db/schema';
import { DomainError, notFound, validation } from '../errors';
import { addMonths, PASSPORT_VALIDITY_MONTHS } from '../flights/travelers';
import { priceColumns } from '../money/markup';
import { ownMarkup, type CatalogueDeps } from '../money/markup-rules';
import { isStorableId } from '../ids';
import type { OrderRow } from '../orders';
import { paginate, type PageSlice } from '../pagination';
import type { PaymentRun } from '../money/payment-ledger';
import { settleRefund } from '../refunds';
import { actorNow } from '../../platform/request-context';
import type { VisaDecisionResult } from '../../../workflows/visa.types';

export type VisaRow = typeof visaProducts.$inferSelect;
export type VisaApplicationRow = typeof visaApplications.$inferSelect;

export async function listVisas(db: DbOrTx, q: { country?: string; visa_type?: string; page: number }): Promise<PageSlice<VisaRow>> {
  const filters: SQL[] = [];
  if (q.country) filters.push(eq(visaProducts.country, q.country.toUpperCase()));
  if (q.visa_type) filters.push(eq(visaProducts.visaType, q.visa_type));
  const where = filters.length ? and(...filters) : undefined;
  return paginate(
    q.page,
    async () => (await db.select({ n: count() }).from(visaProducts).where(where))[0]!.n,
    async (offset, limit) => db.select().from(visaProducts).where(where).orderBy(asc(visaProducts.id)).limit(limit).offset(offset),
  );
}

export async function visaById(db: DbOrTx, id: number): Promise<VisaRow> {
  const [v] = isStorableId(id) ? await db.select().from(visaProducts).where(eq(visaProducts.id, id)) : [];
  if (!v) throw notFound(`visa ${id}`);
  return v;
}

export interface Applicant {
  first_name: string;
  last_name: string;
  birth_date: string;
  gender: 'male' | 'female';
  nationality: string;
  passport_number: string;
  passport_expiry_date: string;
  email?: string;
  phone_number?: string;
}

export interface VisaRequest {
  visa_id: number;
  applicant: Applicant;
  travel: { from: string; to: string };
  documents: Array<{ type: string; reference: string }>;
}

/** Documents every application carries, whatever the product lists on top. */
export const ALWAYS_REQUIRED_DOCUMENTS = ['passport', 'photo'];

/**
 * POST /api/visa/request/: validates the application against the product and creates it
 * with its pending travel order (service fee + government fee), in one transaction.
 */
export async function createApplication(
  db: DbOrTx,
  partnerId: number,
  req: VisaRequest,
  pricing: CatalogueDeps,
  now: Date,
  sandboxDecision: { approve: boolean; afterMs: number } | null,
): Promise<{ order: OrderRow; application: VisaApplicationRow; visa: VisaRow }> {
  const visa = await visaById(db, req.visa_id).catch((err: unknown) => {
    if (err instanceof DomainError && err.code === 'not_found') throw validation('visa_id', `no visa product ${req.visa_id}`);
    throw err;
  });
  const today = now.toISOString().slice(0, 10);
  if (req.travel.from <= today) throw validation('travel.from', 'must be in the future');
  if (req.travel.to <= req.travel.from) throw validation('travel.to', 'must be after travel.from');
  const stay = (Date.parse(req.travel.to) - Date.parse(req.travel.from)) / 86_400_000;
  if (stay > visa.maxStayDays) throw validation('travel.to', `this visa allows at most ${visa.maxStayDays} days of stay`);
  if (req.applicant.nationality === visa.country) throw validation('applicant.nationality', `a national of ${visa.country} needs no visa for it`);
  if (req.applicant.birth_date >= today) throw validation('applicant.birth_date', 'must be in the past');
  const needed = addMonths(req.travel.to, PASSPORT_VALIDITY_MONTHS);
  if (req.applicant.passport_expiry_date < needed) {
    throw validation(
      'applicant.passport_expiry_date',
      `the passport must be valid at least ${PASSPORT_VALIDITY_MONTHS} months after the trip (until ${needed})`,
    );
  }
  const types = new Set(req.documents.map((d) => d.type));
  const missing = ALWAYS_REQUIRED_DOCUMENTS.filter((t) => !types.has(t));
  if (missing.length) throw validation('documents', `missing ${missing.join(' and ')}; required: ${visa.requiredDocuments.join('; ')}`);

  const currency = pricing.currency;
  const price = (await ownMarkup({ ...pricing, db }, 'visa', partnerId, now)).price(visa.serviceFee + visa.governmentFee);
  return db.transaction(async (tx) => {
    const [order] = await tx
      .insert(orders)
      .values({
        createdBy: actorNow(),
        actedBy: actorNow(),
        partnerId,
        service: 'visa',
        totalPrice: price.sellMinor,
        ...priceColumns(price),
        currency,
        paymentMethod: 'PARTNER_CREDIT',
        details: { visa_id: visa.id, service_status: 'draft' },
      })
      .returning();
    const [application] = await tx
      .insert(visaApplications)
      .values({
        partnerId,
        visaProductId: visa.id,
        orderId: order!.id,
        applicant: req.applicant as unknown as Record<string, unknown>,
        travelFrom: req.travel.from,
        travelTo: req.travel.to,
        documents: req.documents,
        sandboxDecision,
      })
      .returning();
    return { order: order!, application: application!, visa };
  });
}

export async function applicationOfOrder(db: DbOrTx, orderId: number): Promise<VisaApplicationRow | undefined> {
  const [row] = await db.select().from(visaApplications).where(eq(visaApplications.orderId, orderId));
  return row;
}

/** The application's status, kept on the order too so that order lists show it. */
async function setStatus(tx: DbOrTx, application: VisaApplicationRow, status: VisaApplicationRow['status'], extra: Partial<VisaApplicationRow> = {}) {
  const now = new Date();
  await tx
    .update(visaApplications)
    .set({ status, ...extra, updatedAt: now })
    .where(eq(visaApplications.id, application.id));
  await tx
    .update(orders)
    .set({ details: sql`jsonb_set(${orders.details}, '{service_status}', ${JSON.stringify(status)}::jsonb)`, actedBy: actorNow(), updatedAt: now })
    .where(eq(orders.id, application.orderId!));
}

export async function recordSubmission(db: DbOrTx, application: VisaApplicationRow, supplierReference: string): Promise<void> {
  await db.transaction((tx) => setStatus(tx, application, 'submitted', { supplierReference }));
}

export async function markUnderReview(db: DbOrTx, applicationId: number): Promise<void> {
  await db.transaction(async (tx) => {
    const [a] = await tx.select().from(visaApplications).where(eq(visaApplications.id, applicationId)).for('update');
    if (a && a.status === 'submitted') await setStatus(tx, a, 'under_review');
  });
}

/**
 * Records the embassy's decision. A rejection gives back the product's share of the
 * service fee (the government fee never comes back) as a refund ledger row.
 */
export async function decideApplication(
  db: DbOrTx,
  input: PaymentRun & { applicationId: number; approve: boolean; reason: string; decidedBy: string },
): Promise<VisaDecisionResult> {
  const [a] = await db.select().from(visaApplications).where(eq(visaApplications.id, input.applicationId));
  if (!a) throw notFound(`visa application ${input.applicationId}`);
  const visa = await visaById(db, a.visaProductId);
  const status = input.approve ? 'approved' : 'rejected';
  const refundMinor = input.approve ? 0 : Math.floor((visa.serviceFee * visa.refundOnRejectionPercent) / 100);
  const decision = { status, decisionReason: input.reason.slice(0, 1000), decidedBy: input.decidedBy.slice(0, 100), decidedAt: new Date() } as const;
  if (refundMinor === 0) {
    await db.transaction((tx) => setStatus(tx, a, status, decision));
    return { applicationId: a.id, status, refundMinor, ledgerId: null };
  }
  const settled = await settleRefund(db, {
    workflowId: input.workflowId,
    runId: input.runId,
    orderId: a.orderId!,
    amountMinor: refundMinor,
    step: 'visa-rejection-refund',
    settledStatus: 'refunded',
    from: ['completed'],
    note: `visa application ${a.id} rejected: ${visa.refundOnRejectionPercent}% of the service fee back`,
    onSettled: (tx) => setStatus(tx, a, status, decision),
  });
  return { applicationId: a.id, status, refundMinor, ledgerId: settled.ledgerId };
}

export type { VisaDecisionResult };
