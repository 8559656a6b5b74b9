import fc from 'fast-check';
import { eq, sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../../src/db/client';
import { orders, wallets } from '../../src/db/schema';
import { account, partsOf, priceChangeLegs, refundLegs, saleLegs, type BookedOrder, type Leg } from '../../src/domain/money/books';
import { DomainError } from '../../src/domain/errors';
import { debitForOrder, reversePayment } from '../../src/domain/money/payment-ledger';
import { createPartner } from '../../src/domain/partners';
import { reconcile } from '../../src/domain/money/reconcile';
import { runReport } from '../../src/domain/reports';
import { accountMovement, marginReport, supplierReport } from '../../src/domain/reports/books';
import { statementPeriod as parsePeriod } from '../../src/domain/money/statements';
import { settleRefund } from '../../src/domain/refunds';
import { setCreditLimit, topUp } from '../../src/domain/money/wallet';
import { freshDatabase } from '../support/stack';

/**
 * No code path can post an unbalanced transfer: the transfers every money step builds are
 * checked for any order, price split, currency and amount (fast-check), random sequences of
 * top-ups, credit changes, payments, reversals and refunds leave the books reconciled, and
 * the database refuses a transfer that would not balance whoever writes it.
 */
/** A database of its own for the enclosing describe block: `db` once it is open. */
function ownDatabase(): { db: Db } {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  const open = { db: undefined as unknown as Db };
  beforeAll(async () => {
    database = await freshDatabase({ proxy: false, connectTimeoutMs: 3000 });
    open.db = database.db;
  });
  afterAll(async () => {
    await database.close();
    await database.drop();
  });
  return open;
}

let db: Db;

const BOOKS = ['transfer_unbalanced', 'currency_not_zero', 'wallet_account', 'entry_not_posted'];

const negated = (n: number) => (n === 0 ? 0 : -n);

/** How the legs of one movement move each account. */
function movedBy(legs: Leg[]): Map<string, number> {
  const moved = new Map<string, number>();
  for (const l of legs) {
    expect(Number.isSafeInteger(l.amount) && l.amount > 0).toBe(true);
    expect(l.debit).not.toBe(l.credit);
    // Every account named is in the leg's currency (wallets are in the order's).
    for (const code of [l.debit, l.credit]) if (!code.startsWith('wallet:')) expect(code.endsWith(`:${l.currency}`)).toBe(true);
    moved.set(l.debit, (moved.get(l.debit) ?? 0) - l.amount);
    moved.set(l.credit, (moved.get(l.credit) ?? 0) + l.amount);
  }
  return moved;
}

const orderArb: fc.Arbitrary<BookedOrder> = fc
  .record({
    total: fc.integer({ min: 0, max: 10 ** 10 }),
    marginShare: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
    foreign: fc.option(
      fc.record({ amount: fc.integer({ min: 0, max: 10 ** 8 }), rate: fc.integer({ min: 1, max: 10 ** 6 }), scale: fc.integer({ min: 4, max: 6 }) }),
      {
        nil: null,
      },
    ),
    supplier: fc.constantFrom('simulator', 'duffel'),
  })
  .map(({ total, marginShare, foreign, supplier }) => {
    const margin = marginShare === null ? null : Math.floor(total * marginShare);
    return {
      id: 1,
      partnerId: 7,
      supplier,
      currency: 'EUR',
      totalPrice: total,
      netPrice: margin === null ? null : total - margin,
      margin,
      supplierAmount: foreign?.amount ?? null,
      supplierCurrency: foreign ? 'GBP' : null,
      fxRateAmount: foreign?.rate ?? null,
      fxRateScale: foreign?.scale ?? null,
    };
  });

describe('the transfers every money step builds', () => {
  it('a sale takes the whole price from the wallet and nothing else from it', () => {
    fc.assert(
      fc.property(orderArb, (order) => {
        const moved = movedBy(saleLegs(order));
        expect(moved.get(account.wallet(7)) ?? 0).toBe(negated(order.totalPrice));
        expect(moved.get(account.margin('EUR')) ?? 0).toBe(partsOf(order).margin);
      }),
    );
  });

  it('a refund credits the wallet exactly what the partner gets back, whatever the supplier refunds', () => {
    fc.assert(
      fc.property(
        orderArb,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.option(fc.record({ amount: fc.integer({ min: 0, max: 10 ** 8 }), valued: fc.integer({ min: 0, max: 10 ** 10 }) }), { nil: undefined }),
        (order, share, supplier) => {
          const credit = Math.floor(order.totalPrice * share);
          const legs = refundLegs(
            order,
            credit,
            supplier && { amount: { amount_minor: supplier.amount, currency: order.supplierCurrency ?? 'EUR' }, valuedMinor: supplier.valued },
          );
          const moved = movedBy(legs);
          expect(moved.get(account.wallet(7)) ?? 0).toBe(credit);
          // The margin is given back in full; what the supplier keeps never comes back from it.
          expect(moved.get(account.margin('EUR')) ?? 0).toBe(negated(partsOf(order).margin));
        },
      ),
    );
  });

  it('a price change moves the wallet by the change of net and margin', () => {
    fc.assert(
      fc.property(orderArb, fc.integer({ min: -(10 ** 8), max: 10 ** 8 }), fc.integer({ min: -(10 ** 6), max: 10 ** 6 }), (order, net, margin) => {
        const moved = movedBy(priceChangeLegs(order, { net, margin }));
        expect(moved.get(account.wallet(7)) ?? 0).toBe(negated(net + margin));
      }),
    );
  });
});

describe('the books in the database', () => {
  const own = ownDatabase();
  beforeAll(() => {
    db = own.db;
  });
  const booksFindings = async () => (await reconcile(db, new Date(), 60 * 60_000)).findings.filter((f) => BOOKS.includes(f.kind));

  type Step =
    | { op: 'topup'; amount: number }
    | { op: 'limit'; limit: number }
    | { op: 'pay'; total: number; marginShare: number | null; foreign: { amount: number; rate: number } | null; supplier: string }
    | { op: 'reverse'; pick: number }
    | { op: 'refund'; pick: number; share: number; supplierShare: number | null };

  const stepArb: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ op: fc.constant('topup' as const), amount: fc.integer({ min: 1, max: 10 ** 7 }) }),
    fc.record({ op: fc.constant('limit' as const), limit: fc.integer({ min: 0, max: 10 ** 7 }) }),
    fc.record({
      // A price of 0 is never paid from the wallet (a ledger row moves something).
      op: fc.constant('pay' as const),
      total: fc.integer({ min: 1, max: 5 * 10 ** 6 }),
      marginShare: fc.option(fc.double({ min: 0, max: 0.5, noNaN: true }), { nil: null }),
      foreign: fc.option(fc.record({ amount: fc.integer({ min: 1, max: 5 * 10 ** 6 }), rate: fc.integer({ min: 1, max: 30_000 }) }), { nil: null }),
      supplier: fc.constantFrom('simulator', 'duffel'),
    }),
    fc.record({ op: fc.constant('reverse' as const), pick: fc.nat() }),
    fc.record({
      op: fc.constant('refund' as const),
      pick: fc.nat(),
      share: fc.double({ min: 0, max: 1, noNaN: true }),
      supplierShare: fc.option(fc.double({ min: 0, max: 1.2, noNaN: true }), { nil: null }),
    }),
  );

  let runs = 0;

  it('random sequences of money steps leave every transfer balanced and every wallet equal to its account', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 14 }), async (steps) => {
        const { partnerId } = await createPartner(db, { name: `books ${++runs}`, creditLimitMinor: 1_000_000, topUpMinor: 500_000, currency: 'EUR' });
        const paid: Array<{ orderId: number; run: { workflowId: string; runId: string } }> = [];
        for (const [i, step] of steps.entries()) {
          const run = { workflowId: `books-${runs}-${i}`, runId: `run-${i}` };
          try {
            if (step.op === 'topup') await topUp(db, partnerId, step.amount);
            if (step.op === 'limit') await setCreditLimit(db, partnerId, step.limit);
            if (step.op === 'pay') {
              const margin = step.marginShare === null ? null : Math.floor(step.total * step.marginShare);
              const [order] = await db
                .insert(orders)
                .values({
                  partnerId,
                  service: 'product',
                  totalPrice: step.total,
                  currency: 'EUR',
                  paymentMethod: 'PARTNER_CREDIT',
                  supplier: step.supplier,
                  netPrice: margin === null ? null : step.total - margin,
                  margin,
                  ...(step.foreign ? { supplierAmount: step.foreign.amount, supplierCurrency: 'GBP', fxRateAmount: step.foreign.rate, fxRateScale: 4 } : {}),
                })
                .returning();
              await debitForOrder(db, { ...run, orderId: order!.id, partnerId });
              paid.push({ orderId: order!.id, run });
            }
            if (step.op === 'reverse' && paid.length > 0) {
              const { orderId, run: payRun } = paid.splice(step.pick % paid.length, 1)[0]!;
              await reversePayment(db, { ...payRun, orderId, reason: 'the supplier said no' });
            }
            if (step.op === 'refund' && paid.length > 0) {
              const { orderId } = paid.splice(step.pick % paid.length, 1)[0]!;
              const [order] = await db.select().from(orders).where(eq(orders.id, orderId));
              const credit = Math.floor(order!.totalPrice * step.share);
              const supplierPaid = order!.supplierAmount ?? order!.netPrice ?? order!.totalPrice;
              await settleRefund(db, {
                ...run,
                orderId,
                amountMinor: credit,
                step: 'refund',
                settledStatus: 'refunded',
                from: ['processing', 'completed'],
                note: 'refund',
                ...(step.supplierShare === null
                  ? {}
                  : {
                      supplierRefund: {
                        amount: { amount_minor: Math.floor(supplierPaid * step.supplierShare), currency: order!.supplierCurrency ?? 'EUR' },
                        valuedMinor: credit,
                      },
                    }),
              });
            }
          } catch (err) {
            // Refusals (no credit left, a limit below what is owed) are answers, and write nothing.
            if (!(err instanceof DomainError)) throw err;
          }
        }
        expect(await booksFindings()).toEqual([]);
        // Read apart from reconcile: the wallet is its account, the credit limit its credit line.
        const [w] = await db.select().from(wallets).where(eq(wallets.partnerId, partnerId));
        const balanceOf = async (code: string) =>
          Number(
            rowsOf<{ balance: string }>(
              await db.execute(sql`select coalesce(sum(case when credit_account = ${code} then amount_minor else -amount_minor end), 0) as balance
                from transfers where credit_account = ${code} or debit_account = ${code}`),
            )[0]!.balance,
          );
        expect(await balanceOf(account.wallet(partnerId))).toBe(w!.balance);
        expect(await balanceOf(account.creditLine(partnerId))).toBe(w!.creditLimit);
      }),
      { numRuns: 30 },
    );
  });

  it('refuses, whoever writes it, a transfer that would not balance', async () => {
    const [entry] = rowsOf<{ id: number }>(await db.execute(sql`select id from ledger_entries limit 1`));
    const write = (debit: string, credit: string, currency: string, amount: number) =>
      db.execute(sql`insert into transfers (ledger_entry_id, kind, debit_account, credit_account, currency, amount_minor)
        values (${entry!.id}, 'adjustment', ${debit}, ${credit}, ${currency}, ${amount})`);
    await db.execute(sql`insert into accounts (code, currency) values ('supplier:duffel:GBP', 'GBP') on conflict do nothing`);
    // Between currencies: one side's currency is not the transfer's.
    await expect(write('supplier:duffel:GBP', 'margin:EUR', 'EUR', 100)).rejects.toThrow();
    await expect(write('supplier:duffel:GBP', 'margin:EUR', 'GBP', 100)).rejects.toThrow();
    // Nothing, or less than nothing, or to itself.
    await expect(write('funding:EUR', 'margin:EUR', 'EUR', 0)).rejects.toThrow();
    await expect(write('funding:EUR', 'margin:EUR', 'EUR', -5)).rejects.toThrow();
    await expect(write('margin:EUR', 'margin:EUR', 'EUR', 5)).rejects.toThrow();
    // An account the books do not know, or one whose code and currency disagree.
    await expect(db.execute(sql`insert into accounts (code, currency) values ('petty_cash:EUR', 'EUR')`)).rejects.toThrow();
    await expect(db.execute(sql`insert into accounts (code, currency) values ('margin:GBP', 'EUR')`)).rejects.toThrow();
    expect(await booksFindings()).toEqual([]);
  });
});

describe('the reports read from the books', () => {
  const own = ownDatabase();
  beforeAll(() => {
    db = own.db;
  });
  it('margins add up to the margin and fee accounts, and what is owed to each supplier to its account', async () => {
    const { partnerId } = await createPartner(db, { name: 'reported', creditLimitMinor: 0, topUpMinor: 10_000_000, currency: 'EUR' });
    const sell = async (i: number, total: number, margin: number, supplier: string, foreign?: { amount: number; rate: number }) => {
      const [order] = await db
        .insert(orders)
        .values({
          partnerId,
          service: i % 2 ? 'hotel' : 'flight',
          totalPrice: total,
          currency: 'EUR',
          paymentMethod: 'PARTNER_CREDIT',
          supplier,
          netPrice: total - margin,
          margin,
          ...(foreign ? { supplierAmount: foreign.amount, supplierCurrency: 'GBP', fxRateAmount: foreign.rate, fxRateScale: 4 } : {}),
        })
        .returning();
      const run = { workflowId: `report-${i}`, runId: 'r' };
      await debitForOrder(db, { ...run, orderId: order!.id, partnerId });
      return { orderId: order!.id, run };
    };
    await sell(1, 110_00, 10_00, 'simulator');
    const reversed = await sell(2, 220_00, 20_00, 'simulator');
    await reversePayment(db, { ...reversed.run, orderId: reversed.orderId, reason: 'the supplier said no' });
    const refunded = await sell(3, 330_00, 30_00, 'duffel', { amount: 250_00, rate: 12_000 });
    await settleRefund(db, {
      workflowId: 'report-3r',
      runId: 'r',
      orderId: refunded.orderId,
      amountMinor: 150_00,
      step: 'refund',
      settledStatus: 'refunded',
      from: ['processing', 'completed'],
      note: 'refund',
    });
    await sell(4, 440_00, 0, 'duffel');

    const today = new Date().toISOString().slice(0, 10);
    const period = parsePeriod(today, today);
    const margins = await marginReport(db, period, 'month');
    const sum = (ns: number[]) => ns.reduce((a, b) => a + b, 0);
    expect(sum(margins.map((r) => r.marginMinor))).toBe(await accountMovement(db, account.margin('EUR'), period));
    expect(sum(margins.map((r) => r.feesMinor))).toBe(await accountMovement(db, account.fees('EUR'), period));
    // Sold with a margin, sold again and reversed (nothing earned), refunded in part (the
    // margin given back, a fee kept), sold at cost.
    expect(sum(margins.map((r) => r.marginMinor))).toBe(10_00);
    expect(sum(margins.map((r) => r.feesMinor))).toBeGreaterThan(0);
    expect(sum(margins.map((r) => r.sales))).toBe(4);

    // The CSV operators download says the same.
    const csv = (await runReport(db, 'margins', { from: today, to: today })).csv.trim().split('\r\n');
    expect(csv[0]).toBe('period,service,partner_id,partner,supplier,currency,sales,margin,fees,parent_id,agency_margin');
    expect(sum(csv.slice(1).map((line) => Math.round(Number(line.split(',')[7]) * 100)))).toBe(10_00);
    expect((await runReport(db, 'suppliers', { from: today, to: today })).csv).toContain('simulator,EUR,0.00,300.00,200.00,100.00');

    const suppliers = await supplierReport(db, period);
    for (const row of suppliers) {
      const code = account.supplier(row.supplier, row.currency);
      const [balance] = rowsOf<{ owed: string }>(
        await db.execute(sql`select coalesce(sum(case when credit_account = ${code} then amount_minor else -amount_minor end), 0) as owed
          from transfers where credit_account = ${code} or debit_account = ${code}`),
      );
      expect(row.owedMinor).toBe(Number(balance!.owed));
      expect(row.owedMinor).toBe(row.openingMinor + row.boughtMinor - row.refundedMinor);
    }
    const owed = Object.fromEntries(suppliers.map((r) => [`${r.supplier}:${r.currency}`, r.owedMinor]));
    expect(owed['simulator:EUR']).toBe(100_00);
    expect(owed['duffel:EUR']).toBe(440_00);
    expect(owed['duffel:GBP']).toBeGreaterThan(0);
    expect(owed['duffel:GBP']).toBeLessThan(250_00);
  });
});
