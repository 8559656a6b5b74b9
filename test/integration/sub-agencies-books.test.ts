import fc from 'fast-check';
import { eq, inArray, sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../../src/db/client';
import { financeDocuments, orders, wallets } from '../../src/db/schema';
import { account } from '../../src/domain/money/books';
import { monthlySummary, snapshotOf } from '../../src/domain/documents/finance';
import { DomainError } from '../../src/domain/errors';
import { debitForOrder, reversePayment } from '../../src/domain/money/payment-ledger';
import { createPartner } from '../../src/domain/partners';
import { reconcile } from '../../src/domain/money/reconcile';
import { marginReport } from '../../src/domain/reports/books';
import { settleRefund } from '../../src/domain/refunds';
import { statementPeriod } from '../../src/domain/money/statements';
import { createSubAgency, setSubAgencyCredit } from '../../src/domain/sub-agencies';
import { freshDatabase } from '../support/stack';

/**
 * Sub-agencies' money: random sequences of credit grants and withdrawals, sales of the parent
 * and of its sub-agencies (each with the company's and the parent's margin), reversals and
 * refunds never let the sub-agencies together spend more than the parent granted, never let
 * the parent spend what it granted, and leave the books reconciled. Their documents: the
 * company's to the parent come to its sub-agencies' less the parent's margins, and every
 * issuer's numbers run without a gap.
 */

let db: Db;
let database: Awaited<ReturnType<typeof freshDatabase>>;
beforeAll(async () => {
  database = await freshDatabase({ proxy: false, connectTimeoutMs: 3000 });
  db = database.db;
});
afterAll(async () => {
  await database.close();
  await database.drop();
});

const BOOKS = [
  'transfer_unbalanced',
  'currency_not_zero',
  'wallet_account',
  'entry_not_posted',
  'wallet_balance',
  'wallet_credit_limit',
  'sub_agency',
  'trial_balance_not_zero',
];
const booksFindings = async () => (await reconcile(db, new Date(), 60 * 60_000)).findings.filter((f) => BOOKS.includes(f.kind));

const balanceOf = async (code: string) =>
  Number(
    rowsOf<{ balance: string }>(
      await db.execute(sql`select coalesce(sum(case when credit_account = ${code} then amount_minor else -amount_minor end), 0) as balance
        from transfers where credit_account = ${code} or debit_account = ${code}`),
    )[0]!.balance,
  );

type Step =
  | { op: 'grant'; child: number; limit: number }
  | { op: 'sell'; buyer: number; total: number; marginPercent: number; agencyPercent: number }
  | { op: 'reverse'; pick: number }
  | { op: 'refund'; pick: number; percent: number };

const CHILDREN = 2;
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('grant' as const), child: fc.nat({ max: CHILDREN - 1 }), limit: fc.integer({ min: 0, max: 1_200_000 }) }),
  // buyer 0 is the parent, 1.. a sub-agency.
  fc.record({
    op: fc.constant('sell' as const),
    buyer: fc.nat({ max: CHILDREN }),
    total: fc.integer({ min: 100, max: 300_000 }),
    marginPercent: fc.integer({ min: 0, max: 50 }),
    agencyPercent: fc.integer({ min: 0, max: 100 }),
  }),
  fc.record({ op: fc.constant('reverse' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('refund' as const), pick: fc.nat(), percent: fc.integer({ min: 0, max: 100 }) }),
);

let runs = 0;
/** Sub-agencies' sales with a margin for the parent that went through: the property is not vacuous. */
let childSales = 0;
/** Every run begins with a sub-agency's sale that earns its parent a margin (within the first grant), whatever the steps drawn after it. */
const CHILD_SALE: Step = { op: 'sell', buyer: 1, total: 1_000, marginPercent: 10, agencyPercent: 50 };
const NUM_RUNS = 25;

it('no sequence of grants, sales, reversals and refunds lets sub-agencies spend more than their parent granted; the books reconcile', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.integer({ min: CHILD_SALE.total, max: 500_000 }), { minLength: CHILDREN, maxLength: CHILDREN }),
      fc.array(stepArb, { minLength: 1, maxLength: 16 }).map((drawn) => [CHILD_SALE, ...drawn]),
      async (first, steps) => {
        runs += 1;
        const { partnerId: parent } = await createPartner(db, { name: `parent ${runs}`, creditLimitMinor: 400_000, topUpMinor: 600_000, currency: 'EUR' });
        const children: number[] = [];
        for (let i = 0; i < CHILDREN; i++) children.push((await createSubAgency(db, parent, `child ${runs}.${i}`)).partnerId);
        for (const [i, limit] of first.entries()) await setSubAgencyCredit(db, parent, children[i]!, limit, `first-${runs}-${i}`);
        const buyers = [parent, ...children];
        type Sale = { orderId: number; run: { workflowId: string; runId: string }; agencyMargin: number };
        /** Sales that stand and can still be reversed or refunded; and those settled by a refund of nothing, which stand for good. */
        const paid: Sale[] = [];
        const settled: Sale[] = [];
        for (const [i, step] of steps.entries()) {
          const run = { workflowId: `sub-books-${runs}-${i}`, runId: `run-${i}` };
          try {
            if (step.op === 'grant') await setSubAgencyCredit(db, parent, children[step.child]!, step.limit, `k-${runs}-${i}`);
            if (step.op === 'sell') {
              const partnerId = buyers[step.buyer]!;
              const margin = Math.floor((step.total * step.marginPercent) / 100);
              const agencyMargin = partnerId === parent ? 0 : Math.floor((margin * step.agencyPercent) / 100);
              const [order] = await db
                .insert(orders)
                .values({
                  partnerId,
                  service: 'hotel',
                  totalPrice: step.total,
                  currency: 'EUR',
                  paymentMethod: 'PARTNER_CREDIT',
                  netPrice: step.total - margin,
                  margin,
                  agencyMargin,
                })
                .returning();
              await debitForOrder(db, { ...run, orderId: order!.id, partnerId });
              paid.push({ orderId: order!.id, run, agencyMargin });
              if (agencyMargin > 0) childSales += 1;
            }
            if (step.op === 'reverse' && paid.length > 0) {
              const [picked] = paid.splice(step.pick % paid.length, 1);
              // A reversal refused leaves the sale as it was.
              await reversePayment(db, { ...picked!.run, orderId: picked!.orderId, reason: 'the supplier said no' }).catch((err: unknown) => {
                paid.push(picked!);
                throw err;
              });
            }
            if (step.op === 'refund' && paid.length > 0) {
              const [picked] = paid.splice(step.pick % paid.length, 1);
              const [order] = await db.select().from(orders).where(eq(orders.id, picked!.orderId));
              const credit = Math.floor((order!.totalPrice * step.percent) / 100);
              await settleRefund(db, {
                ...run,
                orderId: picked!.orderId,
                amountMinor: credit,
                step: 'refund',
                settledStatus: 'refunded',
                from: ['processing', 'completed'],
                note: 'refund',
              }).catch((err: unknown) => {
                paid.push(picked!);
                throw err;
              });
              // A refund of nothing moves nothing: the order is settled, and its sale and margins stand.
              if (credit === 0) settled.push(picked!);
            }
          } catch (err) {
            // Refusals (beyond what is available, below what a sub-agency used) are answers, and write nothing.
            if (!(err instanceof DomainError)) throw err;
          }
          const ws = await db.select().from(wallets).where(inArray(wallets.partnerId, children));
          const granted = ws.reduce((n, w) => n + w.creditLimit, 0);
          const canSpend = ws.reduce((n, w) => n + w.balance + w.creditLimit, 0);
          // What the sub-agencies can spend together never exceeds what their parent granted them.
          expect(canSpend).toBeLessThanOrEqual(granted);
          for (const w of ws) expect(w.balance).toBeLessThanOrEqual(0);
          // And the parent's wallet gave up exactly that: its own spending power is what is left.
          const [pw] = await db.select().from(wallets).where(eq(wallets.partnerId, parent));
          const own = rowsOf<{ moved: string }>(
            await db.execute(sql`select coalesce(sum(case direction when 'credit' then amount_minor else -amount_minor end), 0) as moved
            from ledger_entries where partner_id = ${parent} and type in ('topup', 'payment', 'refund')`),
          )[0]!.moved;
          expect(pw!.balance).toBe(Number(own) - granted);
        }
        expect(await booksFindings()).toEqual([]);
        // The parent's margin account holds its share of its sub-agencies' sales that stand (a refund gives the margins back).
        const agencyMargin = await balanceOf(account.agencyMargin(parent));
        expect(agencyMargin).toBe([...paid, ...settled].reduce((n, p) => n + p.agencyMargin, 0));
        const today = new Date().toISOString().slice(0, 10);
        const rows = (await marginReport(db, statementPeriod(today, today), 'month')).filter((r) => r.parentId === parent);
        expect(rows.reduce((n, r) => n + r.agencyMarginMinor, 0)).toBe(agencyMargin);
      },
    ),
    { numRuns: NUM_RUNS },
  );
  expect(childSales).toBeGreaterThanOrEqual(NUM_RUNS);
});

const SETTINGS = { operator: { legalName: 'Safar Operator Ltd' }, tax: { name: 'VAT', rateHundredths: 900 } };
/** Refunds smaller than the parent's margin they give back: the company's document to the parent is then an invoice. */
let smallRefunds = 0;

it("the company's documents to a parent come to its sub-agencies' documents less the parent's margins; every issuer's sequence is gapless", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.oneof(
          fc.record({
            op: fc.constant('sell' as const),
            buyer: fc.nat({ max: CHILDREN }),
            total: fc.integer({ min: 100, max: 300_000 }),
            marginPercent: fc.integer({ min: 0, max: 50 }),
            agencyPercent: fc.integer({ min: 0, max: 100 }),
          }),
          fc.record({ op: fc.constant('refund' as const), pick: fc.nat(), percent: fc.integer({ min: 0, max: 100 }) }),
        ),
        { minLength: 1, maxLength: 12 },
      ),
      async (steps) => {
        runs += 1;
        const { partnerId: parent } = await createPartner(db, { name: `doc parent ${runs}`, creditLimitMinor: 0, topUpMinor: 10_000_000, currency: 'EUR' });
        const children: number[] = [];
        for (let i = 0; i < CHILDREN; i++) {
          children.push((await createSubAgency(db, parent, `doc child ${runs}.${i}`)).partnerId);
          await setSubAgencyCredit(db, parent, children[i]!, 3_000_000, `doc-${runs}-${i}`);
        }
        const buyers = [parent, ...children];
        // Reversals (the supplier refused) come before an order stands, and are owed no document: the sales here stand.
        const paid: Array<{ orderId: number; agencyMargin: number }> = [];
        for (const [i, step] of steps.entries()) {
          const run = { workflowId: `sub-docs-${runs}-${i}`, runId: `run-${i}` };
          if (step.op === 'sell') {
            const partnerId = buyers[step.buyer]!;
            const margin = Math.floor((step.total * step.marginPercent) / 100);
            const agencyMargin = partnerId === parent ? 0 : Math.floor((margin * step.agencyPercent) / 100);
            const [order] = await db
              .insert(orders)
              .values({
                partnerId,
                service: 'hotel',
                totalPrice: step.total,
                currency: 'EUR',
                paymentMethod: 'PARTNER_CREDIT',
                netPrice: step.total - margin,
                margin,
                agencyMargin,
              })
              .returning();
            await debitForOrder(db, { ...run, orderId: order!.id, partnerId });
            // The supplier confirmed: its payment stands, and is owed its invoice.
            await db.update(orders).set({ status: 'completed' }).where(eq(orders.id, order!.id));
            paid.push({ orderId: order!.id, agencyMargin });
          }
          if (step.op === 'refund' && paid.length > 0) {
            const picked = paid.splice(step.pick % paid.length, 1)[0]!;
            const [order] = await db.select().from(orders).where(eq(orders.id, picked.orderId));
            const credit = Math.floor((order!.totalPrice * step.percent) / 100);
            if (credit === 0) paid.push(picked);
            if (credit > 0 && credit < picked.agencyMargin) smallRefunds += 1;
            await settleRefund(db, {
              ...run,
              orderId: picked.orderId,
              amountMinor: credit,
              step: 'refund',
              settledStatus: 'refunded',
              from: ['completed'],
              note: 'refund',
            });
          }
          // Documents are issued as they are asked for: now and then, midway.
          if (i % 3 === 2) await monthlySummary(db, SETTINGS, children[i % CHILDREN]!, new Date().toISOString().slice(0, 7));
        }
        const month = new Date().toISOString().slice(0, 7);
        const signed = (docs: Awaited<ReturnType<typeof monthlySummary>>['documents']) =>
          docs.reduce((n, d) => n + (d.kind === 'invoice' ? d.total : -d.total), 0);
        const childDocs = await Promise.all(children.map((c) => monthlySummary(db, SETTINGS, c, month)));
        const parentDocs = (await monthlySummary(db, SETTINGS, parent, month)).documents;
        // A sub-agency's documents are its parent's, to it; the parent's are the company's.
        for (const [i, sum] of childDocs.entries()) for (const d of sum.documents) expect([d.issuer, d.partnerId]).toEqual([`agency:${parent}`, children[i]]);
        for (const d of parentDocs) expect(d.issuer).toBe('operator');
        const purchases = parentDocs.filter((d) => snapshotOf(d).purchase);
        const ownDocs = parentDocs.filter((d) => !snapshotOf(d).purchase);
        expect(signed(purchases)).toBe(childDocs.reduce((n, sum) => n + signed(sum.documents), 0) - (await balanceOf(account.agencyMargin(parent))));
        // What the parent bought for itself is what it paid, as for any agency.
        const own = rowsOf<{ moved: string }>(
          await db.execute(sql`select coalesce(sum(case l.type when 'payment' then l.amount_minor else -l.amount_minor end), 0) as moved
            from ledger_entries l where l.partner_id = ${parent} and l.type in ('payment', 'refund')
            and not exists (select 1 from ledger_entries r where r.reverses_entry_id = l.id) and l.reverses_entry_id is null`),
        )[0]!.moved;
        expect(signed(ownDocs)).toBe(Number(own));
        for (const issuer of ['operator', `agency:${parent}`]) {
          const numbers = (await db.select({ n: financeDocuments.number }).from(financeDocuments).where(eq(financeDocuments.issuer, issuer))).map((r) => r.n);
          expect(numbers.sort((a, b) => a - b)).toEqual(Array.from({ length: numbers.length }, (_, k) => k + 1));
        }
      },
    ),
    {
      numRuns: 20,
      // A sub-agency's sale refunded by less than its parent's margin, so that case is always among the runs.
      examples: [
        [
          [
            { op: 'sell', buyer: 1, total: 100_000, marginPercent: 50, agencyPercent: 100 },
            { op: 'refund', pick: 0, percent: 10 },
          ],
        ],
      ],
    },
  );
  expect(smallRefunds).toBeGreaterThan(0);
});

it("reconcile finds a parent's margin posted to another account, or not posted at all", async () => {
  const { partnerId: parent } = await createPartner(db, { name: 'parent misposted', creditLimitMinor: 0, topUpMinor: 600_000, currency: 'EUR' });
  const child = (await createSubAgency(db, parent, 'child misposted')).partnerId;
  await setSubAgencyCredit(db, parent, child, 500_000, 'misposted-grant');
  const sell = async (n: number) => {
    const [order] = await db
      .insert(orders)
      .values({
        partnerId: child,
        service: 'hotel',
        totalPrice: 100_000,
        currency: 'EUR',
        paymentMethod: 'PARTNER_CREDIT',
        netPrice: 80_000,
        margin: 20_000,
        agencyMargin: 5_000,
      })
      .returning();
    await debitForOrder(db, { workflowId: `misposted-${n}`, runId: 'r', orderId: order!.id, partnerId: child });
    return order!.id;
  };
  const [moved, dropped] = [await sell(1), await sell(2)];
  const mine = async () => (await booksFindings()).filter((f) => f.order_id === moved || f.order_id === dropped);
  expect(await mine()).toEqual([]);
  // The parent's margin of one sale credited to the company's margin account instead; the other's leg gone with its amount.
  await db.execute(sql`update transfers set credit_account = ${account.margin('EUR')} where order_id = ${moved} and kind = 'agency_margin'`);
  await db.execute(
    sql`update transfers set kind = 'sale_margin', credit_account = ${account.margin('EUR')} where order_id = ${dropped} and kind = 'agency_margin'`,
  );
  const found = await mine();
  expect(found.map((f) => f.detail)).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/\(agency_margin\) moves wallet:\d+ to margin:EUR, not its parent's agency_margin account/),
      expect.stringMatching(new RegExp(`order ${dropped} posted none of its parent's margin`)),
    ]),
  );
});
