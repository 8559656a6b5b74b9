import { and, eq } from 'drizzle-orm';
import { toCommand } from '../../src/cli/admin';
import { ledgerEntries, orders } from '../../src/db/schema';
import { SEED_VISAS } from '../../src/db/seed/visa-data';
import type { PartnerClient } from '../../src/client';
import type { components } from '../../src/client/partner-api';
import { adminClient, newPartner as partnerWithWallet, settled } from '../support/clients';
import { eventTypesOf } from '../support/events';
import { recordHistory } from '../support/histories';
import { arm, disarmAll, faultInjector, undefinedColumn } from '../support/faults';
import { startStack, type TestStack, useStack } from '../support/stack';
import { day, visaApplication } from '../support/fixtures';
import { waitFor } from '../support/wait';

/** Visa on Interface A (spec §4.5): catalogue, application request, pay to submit, the embassy's decision. */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

type VisaRequest = components['schemas']['VisaRequest'];
const newPartner = () => partnerWithWallet(stack, '0', '1000000000');
const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);
const visaId = (code: string) => SEED_VISAS.findIndex((v) => v.code === code) + 1;
const withRefund = (percent: number) => SEED_VISAS.find((v) => v.refund_on_rejection_percent === percent && v.max_stay_days >= 7)!;

const requestBody = (visa: { code: string }): VisaRequest => visaApplication(visaId(visa.code));
const { applicant } = visaApplication(0);

async function applyAndPay(client: PartnerClient, visa: { code: string }) {
  const req = await client.POST('/visa/request/', { body: requestBody(visa) });
  expect(req.response.status).toBe(201);
  const orderId = req.data!.data.id;
  const paid = await client.POST('/partners/pay/', { body: { order_id: orderId, idempotency_key: `visa-${orderId}` } });
  expect(paid.response.status).toBe(200);
  return { orderId, request: req.data!.data, paid: settled(paid)! };
}

async function statusOf(client: PartnerClient, orderId: number) {
  return (await client.GET('/visa/requests/{id}/', { params: { path: { id: String(orderId) } } })).data!.data;
}

/** The visa request once it has `status`, as Interface A shows it; fails after 20 s naming the status seen last. */
async function untilVisaStatus(client: PartnerClient, orderId: number, status: string) {
  let current = await statusOf(client, orderId);
  await waitFor(
    async () => (current = await statusOf(client, orderId)).status === status,
    () => `visa request ${orderId} to be ${status} (last seen: ${current.status})`,
    20_000,
    200,
  );
  return current;
}

describe('catalogue', () => {
  it('lists visa products with fees and required documents, filters by country and type', async () => {
    const { client } = await newPartner();
    const all = await client.GET('/visa/');
    expect(all.data?.data.total_count).toBe(SEED_VISAS.length);
    const first = all.data!.data.results[0]!;
    expect(minor(first.price)).toBe(minor(first.service_fee) + minor(first.government_fee));
    expect(first.required_documents.length).toBeGreaterThan(0);
    const de = await client.GET('/visa/', { params: { query: { country: 'de' } } });
    expect(de.data?.data.results.every((v: { country: string }) => v.country === 'DE')).toBe(true);
    const evisas = await client.GET('/visa/', { params: { query: { visa_type: 'e-visa' } } });
    expect(evisas.data?.data.total_count).toBe(SEED_VISAS.filter((v) => v.visa_type === 'e-visa').length);
    expect((await client.GET('/visa/{id}/', { params: { path: { id: String(first.id) } } })).data?.data).toEqual(first);
    expect((await client.GET('/visa/{id}/', { params: { path: { id: '9999' } } })).response.status).toBe(404);
  });
});

describe('applications', () => {
  it.each([
    [{ travel: { from: day(-1), to: day(5) } }, /^travel\.from: must be from today \(UTC\)/],
    [{ travel: { from: day(40), to: day(40) } }, /^travel\.to: must be after travel\.from/],
    [{ travel: { from: day(40), to: day(400) } }, /^travel\.to: this visa allows at most/],
    [{ applicant: { ...applicant, passport_expiry_date: day(60) } }, /^applicant\.passport_expiry_date: the passport must be valid at least 6 months/],
    [{ documents: [{ type: 'passport', reference: 'x' }] }, /^documents: missing photo/],
    [{ visa_id: 9999 }, /^visa_id: no visa product 9999/],
    [{ applicant: { ...applicant, nationality: 'Iran' } }, /^applicant\.nationality: /],
  ])('refuses %j with 400 and creates no order', async (over, message) => {
    // Raw: input the contract refuses, sent as is.
    const { api: raw, client } = await newPartner();
    const res = await raw.post('/api/visa/request/', { ...requestBody(SEED_VISAS[0]!), ...over });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect((await client.GET('/partners/orders/')).data?.data.total_count).toBe(0);
  });

  it('submits on payment, waits under review, and records the approval an operator relays', async () => {
    const { api, client } = await newPartner();
    const visa = withRefund(50);
    const { orderId, request, paid } = await applyAndPay(client, visa);
    expect(request).toMatchObject({ service: 'visa', status: 'pending', application: { status: 'draft' } });
    expect(minor(request.total_price)).toBe(visa.service_fee_minor + visa.government_fee_minor);
    expect(minor(paid.amount)).toBe(visa.service_fee_minor + visa.government_fee_minor);

    const review = await untilVisaStatus(client, orderId, 'under_review');
    expect(review).toMatchObject({ status: 'under_review', order_status: 'completed', supplier_reference: expect.stringMatching(/^VSA-/) });
    expect((await client.GET('/partners/orders/')).data?.data.results[0]).toMatchObject({
      id: orderId,
      service: 'visa',
      status: 'completed',
      service_status: 'under_review',
    });

    const decided = await adminClient(stack).post(`/admin/orders/${orderId}/visa-decision`, { decision: 'approve', reason: 'issued' });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ status: 'approved', refund_amount: '0.00' });
    expect(await statusOf(client, orderId)).toMatchObject({ status: 'approved', decision_reason: 'issued', decided_at: expect.any(String) });
    expect((await client.GET('/partners/orders/')).data?.data.results[0]).toMatchObject({ status: 'completed', service_status: 'approved' });
    expect((await adminClient(stack).post(`/admin/orders/${orderId}/visa-decision`, { decision: 'reject' })).status).toBe(400);
    expect(await eventTypesOf(api, orderId)).toEqual(['order.processing', 'order.completed', 'visa.decided']);

    const partnerId = (await stack.db.select().from(orders).where(eq(orders.id, orderId)))[0]!.partnerId;
    await recordHistory(stack, `visa-application:order:${orderId}`, 'visa-application');
    await recordHistory(stack, `pay:p${partnerId}:key:visa-${orderId}`, 'visa-pay');
  });

  it('refunds the product’s share of the service fee when the visa is refused', async () => {
    const { api, client } = await newPartner();
    const visa = withRefund(50);
    const { orderId } = await applyAndPay(client, visa);
    await untilVisaStatus(client, orderId, 'under_review');
    const before = await api.wallet();
    const decided = await adminClient(stack).post(`/admin/orders/${orderId}/visa-decision`, { decision: 'reject', reason: 'insufficient funds shown' });
    const refund = Math.floor(visa.service_fee_minor / 2);
    expect(decided.body).toMatchObject({ status: 'rejected', ledger_id: expect.any(Number) });
    expect(minor(decided.body.refund_amount)).toBe(refund);
    expect(minor((await api.wallet()).balance)).toBe(minor(before.balance) + refund);
    const refunds = await stack.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.orderId, orderId), eq(ledgerEntries.type, 'refund')));
    expect(refunds.map((r) => r.amount)).toEqual([refund]);
    expect((await client.GET('/partners/orders/')).data?.data.results[0]).toMatchObject({ status: 'refunded', service_status: 'rejected' });
    expect(await eventTypesOf(api, orderId)).toEqual(['order.processing', 'order.completed', 'refund.completed', 'visa.decided']);
  });

  it('refunds nothing when the product says so', async () => {
    const { api, client } = await newPartner();
    const { orderId } = await applyAndPay(client, withRefund(0));
    await untilVisaStatus(client, orderId, 'under_review');
    const before = await api.wallet();
    const decided = await adminClient(stack).post(`/admin/orders/${orderId}/visa-decision`, { decision: 'reject' });
    expect(decided.body).toMatchObject({ status: 'rejected', refund_amount: '0.00', ledger_id: null });
    expect(await api.wallet()).toEqual(before);
    expect(await eventTypesOf(api, orderId)).toEqual(['order.processing', 'order.completed', 'visa.decided']);
  });

  it('refuses a decision for an unpaid application, and hides other partners’ applications', async () => {
    const { client } = await newPartner();
    const { client: other } = await newPartner();
    const req = await client.POST('/visa/request/', { body: requestBody(SEED_VISAS[0]!) });
    expect((await adminClient(stack).post(`/admin/orders/${req.data!.data.id}/visa-decision`, { decision: 'approve' })).status).toBe(400);
    expect((await other.GET('/visa/requests/{id}/', { params: { path: { id: String(req.data!.data.id) } } })).response.status).toBe(404);
    expect(toCommand(['visa', 'decide', '--order', '5', '--reject', '--reason', 'no']).command).toEqual({
      method: 'POST',
      path: '/admin/orders/5/visa-decision',
      body: { decision: 'reject', reason: 'no' },
    });
    expect(() => toCommand(['visa', 'decide', '--order', '5'])).toThrow(/--approve and --reject/);
  });
});

describe('sandbox embassy', () => {
  it('rides out a decision that cannot be written yet: written once the database takes it, the refund once', async () => {
    const quick = await startStack({ visaDecisionMs: 1000, activityInterceptors: [faultInjector] });
    try {
      const { client } = await partnerWithWallet(quick, '0', '1000000000');
      const visa = withRefund(100);
      const req = await client.POST('/visa/request/', { params: { header: { 'x-sandbox-scenario': 'visa_reject' } }, body: requestBody(visa) });
      const fault = arm({ step: 'decideVisa', error: undefinedColumn, times: 1 });
      await client.POST('/partners/pay/', { body: { order_id: req.data!.data.id } });
      await waitFor(async () => fault.attempts === 1, 'the decision refused once', 20_000);
      expect((await statusOf(client, req.data!.data.id)).status).toBe('under_review');
      await untilVisaStatus(client, req.data!.data.id, 'rejected');
      const refunds = await quick.db
        .select()
        .from(ledgerEntries)
        .where(and(eq(ledgerEntries.orderId, req.data!.data.id), eq(ledgerEntries.type, 'refund')));
      expect(refunds.map((r) => r.amount)).toEqual([visa.service_fee_minor]);
      await recordHistory(quick, `visa-application:order:${req.data!.data.id}`, 'visa-application-ridden-out');
    } finally {
      disarmAll();
      await quick.close();
    }
  });

  it('decides by itself after a delay, as the partner asked with X-Sandbox-Scenario', async () => {
    const quick = await startStack({ visaDecisionMs: 1000 });
    try {
      const { api, client } = await partnerWithWallet(quick, '0', '1000000000');
      const visa = withRefund(100);
      const req = await client.POST('/visa/request/', { params: { header: { 'x-sandbox-scenario': 'visa_reject' } }, body: requestBody(visa) });
      await client.POST('/partners/pay/', { body: { order_id: req.data!.data.id } });
      await untilVisaStatus(client, req.data!.data.id, 'rejected');
      expect((await client.GET('/partners/ledger/')).data?.data.results[0]).toMatchObject({ type: 'refund', order: req.data!.data.id });
      expect(minor((await client.GET('/partners/ledger/')).data!.data.results[0]!.amount)).toBe(visa.service_fee_minor);
      expect(await eventTypesOf(api, req.data!.data.id)).toEqual(['order.processing', 'order.completed', 'refund.completed', 'visa.decided']);
    } finally {
      await quick.close();
    }
  });
});
