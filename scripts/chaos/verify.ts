/**
 * After the load: wait (bounded) for the payments still under way, decide the parked ones
 * through the admin CLI as an operator would, then check the books three ways — from SQL,
 * through Interface A and the admin API as the partner and operator see them, and with the
 * engine's own `admin reconcile` — and against what the API answered during the run.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import type { Http } from './http';
import { toMinor } from './http';
import { sleep, type Target } from './target';
import { keyOf, type RunPartner, type RunRecord } from './workload';

export interface Finding {
  check: string;
  partner_id?: number;
  order_id?: number;
  detail: string;
}

const ROOT = path.resolve(__dirname, '..', '..');

/** What the SQL checks need of a client: pg's query shape (a pg.Client; PGlite in the unit test). */
export interface Queryable {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

/** Runs the admin CLI (the operators' tool) against the target's admin API. */
export function adminCli(target: Target, args: string[], timeoutMs = 90_000): Promise<{ exit: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, ADMIN_URL: target.apis[0]!.adminUrl, ADMIN_TOKEN: target.adminToken, USER: 'chaos' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ exit: code ?? (signal ? 124 : 1), stdout, stderr });
    });
  });
}

// --- Reading the run's orders ------------------------------------------------------------

interface ApiOrder {
  id: number;
  status: string;
  total_price_irt: string;
}

interface ApiLedgerRow {
  id: number;
  direction: 'debit' | 'credit';
  type: string;
  amount: string;
  balance_after: string;
  product_order: number | null;
  order: number | null;
  reverses: number | null;
}

/** Every page of a paginated Interface A list, as the partner sees it. */
export async function allPages<T>(http: Http, p: RunPartner, route: string): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; page <= 10_000; page++) {
    const r = await http.partner(p, 'GET', `${route}?page=${page}`);
    if (r.status !== 200) throw new Error(`GET ${route}?page=${page} as partner ${p.partner_id}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
    const data = r.json!.data as { results: T[]; total_pages: number };
    out.push(...data.results);
    if (page >= data.total_pages) break;
  }
  return out;
}

/** Statuses of the run's orders: one SQL query, or Interface A's order lists. */
export async function orderStatuses(http: Http, run: RunRecord, db: pg.Client | null): Promise<Map<number, string>> {
  const ids = run.orders.map((o) => o.id);
  const map = new Map<number, string>();
  if (db) {
    const res = await db.query<{ id: number; status: string }>('select id, status from orders where id = any($1::int[])', [ids]);
    for (const r of res.rows) map.set(Number(r.id), r.status);
    return map;
  }
  for (const p of run.partners) {
    for (const o of await allPages<ApiOrder>(http, p, '/api/partners/product-orders/')) map.set(o.id, o.status);
  }
  return map;
}

export interface Inspect {
  order: { id: number; status: string; partner_id: number; price_parts?: { agency_margin: string } };
  ledger: Array<{ id: number; type: string; direction: string; amount: string; step: string | null; workflow_id: string | null }>;
  payment: { workflow_id: string; status: string; state: { step: string; lastError: string | null; attempts: number; parkedAt?: string } | null } | null;
}

export const inspect = async (http: Http, id: number) => {
  const r = await http.admin<Inspect>('GET', `/admin/orders/${id}`);
  if (r.status !== 200) throw new Error(`admin inspect order ${id}: HTTP ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
};

// --- Settling ----------------------------------------------------------------------------

export interface SettleReport {
  seconds: number;
  processing_after_load: number;
  parked: number;
  decisions: Record<string, number>;
  repaid_after_compensation: number;
  still_processing: number[];
}

/**
 * Waits until none of the run's orders is processing, deciding each payment parked in
 * needs_attention through the admin CLI: `order inspect`, then `order retry` (the sandbox
 * supplier recovers after a while) or `order compensate` (half of the supplier_down ones,
 * so that both decisions are exercised; any payment that parks again after two retries),
 * never a payment parked after the supplier confirmed (the pivot rule: only retry there).
 * A compensated order is payable again: it is paid once more with a new key.
 */
export async function settle(
  http: Http,
  target: Target,
  run: RunRecord,
  db: pg.Client | null,
  deadlineAt: number,
  log: (m: string) => void,
): Promise<SettleReport> {
  const started = Date.now();
  const byId = new Map(run.orders.map((o) => [o.id, o]));
  const retries = new Map<number, number>();
  let parkedSeen = 0;
  let repaid = 0;
  let first: number | null = null;
  let downTurn = 0;
  for (;;) {
    const statuses = await orderStatuses(http, run, db);
    const processing = [...statuses].filter(([, s]) => s === 'processing').map(([id]) => id);
    first ??= processing.length;
    if (processing.length === 0 || Date.now() >= deadlineAt) {
      return {
        seconds: Math.round((Date.now() - started) / 100) / 10,
        processing_after_load: first,
        parked: parkedSeen,
        decisions: run.decisions.reduce<Record<string, number>>((m, d) => ({ ...m, [d.action]: (m[d.action] ?? 0) + 1 }), {}),
        repaid_after_compensation: repaid,
        still_processing: processing,
      };
    }
    const parked: number[] = [];
    // Where each is parked: past the supplier's confirmation (`completing`) or while a debit is reversed, only retry applies.
    const parkedAt = new Map<number, string>();
    for (const id of processing) {
      const i = await inspect(http, id).catch(() => null);
      if (i?.payment?.state?.step === 'needs_attention') {
        parked.push(id);
        parkedAt.set(id, i.payment.state.parkedAt ?? 'finalizing');
      }
    }
    if (parked.length) log(`settle: ${processing.length} processing, ${parked.length} parked in needs_attention: deciding`);
    for (const id of parked) {
      parkedSeen += retries.has(id) ? 0 : 1;
      const o = byId.get(id);
      const n = retries.get(id) ?? 0;
      // Look first, as an operator does.
      await adminCli(target, ['order', 'inspect', '--order', String(id), '--json']);
      const compensate = parkedAt.get(id) === 'finalizing' && (n >= 2 || (n === 0 && o?.kind === 'supplier_down' && downTurn++ % 2 === 1));
      const action = compensate ? 'compensate' : 'retry';
      const t0 = Date.now();
      const out = await adminCli(target, [
        'order',
        action,
        '--order',
        String(id),
        '--reason',
        `chaos ${run.runId}: ${compensate ? 'supplier confirms nothing was made' : 'supplier recovered'}`,
        '--json',
      ]);
      let after = '?';
      try {
        after = (JSON.parse(out.stdout) as { order?: { status?: string } }).order?.status ?? '?';
      } catch {
        after = `exit ${out.exit}: ${out.stderr.trim().slice(0, 200)}`;
      }
      run.decisions.push({ orderId: id, action, exit: out.exit, after, ms: Date.now() - t0 });
      retries.set(id, n + 1);
      if (compensate && out.exit === 0 && after === 'pending' && o) {
        const p = run.partners[o.partner]!;
        run.pays.push(await http.pay(p, id, keyOf(run.runId, id, '-again')));
        repaid += 1;
      }
    }
    await sleep(parked.length ? 500 : 2000);
  }
}

// --- The checks --------------------------------------------------------------------------

const signed = (direction: string, amount: number) => (direction === 'credit' ? amount : -amount);

export function topupFindings(p: RunPartner, ledgerTopups: number, where: string): Finding[] {
  // Lost answers to top-ups: any subset of them may be in the books.
  const possible = new Set([p.topupsMinor]);
  for (const u of p.uncertainTopupsMinor) for (const v of [...possible]) possible.add(v + u);
  if (possible.has(ledgerTopups)) return [];
  return [
    {
      check: `${where}:topups`,
      partner_id: p.partner_id,
      detail: `the ledger has ${ledgerTopups} in top-ups, the operator made ${[...possible].join(' or ')} (minor units)`,
    },
  ];
}

/** The books from SQL: wallets, orders, keys, reversals, and the balance chain. */
export async function sqlChecks(db: Queryable, run: RunRecord): Promise<{ findings: Finding[]; checked: Record<string, number> }> {
  const findings: Finding[] = [];
  const pids = run.partners.map((p) => p.partner_id);
  const partnerOf = new Map(run.partners.map((p) => [p.partner_id, p]));
  const runOrders = new Map(run.orders.map((o) => [o.id, o]));

  const orders = (
    await db.query<{ id: number; partner_id: number; status: string; total: string; net: string; debits: string; unreversed: string }>(
      `select o.id, o.partner_id, o.status, o.total_price_minor as total,
         coalesce(sum(case when l.type = 'payment' then l.amount_minor when l.type = 'refund' then -l.amount_minor else 0 end), 0) as net,
         count(l.id) filter (where l.type = 'payment') as debits,
         count(l.id) filter (where l.type = 'payment' and not exists (select 1 from ledger_entries r where r.reverses_entry_id = l.id)) as unreversed
       from orders o left join ledger_entries l on l.order_id = o.id
       where o.partner_id = any($1::int[]) group by o.id order by o.id`,
      [pids],
    )
  ).rows;
  const completedTotal = new Map<number, number>();
  for (const o of orders) {
    const id = Number(o.id);
    const total = Number(o.total);
    const net = Number(o.net);
    const unreversed = Number(o.unreversed);
    const mine = runOrders.get(id);
    if (!mine)
      findings.push({ check: 'sql:order_unknown', partner_id: o.partner_id, order_id: id, detail: `order ${id} (${o.status}) was not made by this run` });
    else if (mine.totalMinor !== total)
      findings.push({ check: 'sql:order_total', partner_id: o.partner_id, order_id: id, detail: `total ${total} but checkout said ${mine.totalMinor}` });
    if (o.status === 'completed') {
      completedTotal.set(o.partner_id, (completedTotal.get(o.partner_id) ?? 0) + total);
      if (net !== total || unreversed !== 1) {
        findings.push({
          check: 'sql:completed_paid_once',
          partner_id: o.partner_id,
          order_id: id,
          detail: `completed for ${total} but paid ${net} net in ${unreversed} unreversed debit(s) of ${o.debits}`,
        });
      }
    } else if (o.status === 'processing') {
      findings.push({ check: 'sql:stuck', partner_id: o.partner_id, order_id: id, detail: `still processing (net ${net} taken)` });
    } else if (net !== 0 || unreversed !== 0) {
      findings.push({
        check: 'sql:not_completed_kept_money',
        partner_id: o.partner_id,
        order_id: id,
        detail: `${o.status} but ${net} net taken (${unreversed} unreversed debit(s))`,
      });
    }
  }
  const seen = new Set(orders.map((o) => Number(o.id)));
  for (const o of run.orders)
    if (!seen.has(o.id)) findings.push({ check: 'sql:order_missing', order_id: o.id, detail: `order ${o.id} made by this run is not in the database` });

  const wallets = (
    await db.query<{
      partner_id: number;
      balance: string;
      credit: string;
      ledger_balance: string;
      ledger_credit: string;
      topups: string;
      payments: string;
      refunds: string;
      adjustments: string;
      sub_agency_credit: string;
    }>(
      `select w.partner_id, w.balance_minor as balance, w.credit_limit_minor as credit,
         coalesce(sum(case when l.type <> 'credit_grant' then (case l.direction when 'credit' then l.amount_minor else -l.amount_minor end) end), 0) as ledger_balance,
         coalesce(sum(case when l.type = 'credit_grant' then (case l.direction when 'credit' then l.amount_minor else -l.amount_minor end) end), 0) as ledger_credit,
         coalesce(sum(l.amount_minor) filter (where l.type = 'topup'), 0) as topups,
         coalesce(sum(l.amount_minor) filter (where l.type = 'payment'), 0) as payments,
         coalesce(sum(l.amount_minor) filter (where l.type = 'refund'), 0) as refunds,
         count(l.id) filter (where l.type = 'adjustment') as adjustments,
         coalesce(sum(case l.direction when 'credit' then l.amount_minor else -l.amount_minor end) filter (where l.type = 'sub_agency_credit'), 0) as sub_agency_credit
       from wallets w left join ledger_entries l on l.partner_id = w.partner_id
       where w.partner_id = any($1::int[]) group by w.partner_id, w.balance_minor, w.credit_limit_minor`,
      [pids],
    )
  ).rows;
  for (const w of wallets) {
    const p = partnerOf.get(w.partner_id)!;
    const balance = Number(w.balance);
    const topups = Number(w.topups);
    const netPayments = Number(w.payments) - Number(w.refunds);
    // What a parent granted its sub-agencies left its wallet (and what it took back came in).
    const subAgencyCredit = Number(w.sub_agency_credit);
    if (balance !== Number(w.ledger_balance))
      findings.push({ check: 'sql:wallet_vs_ledger', partner_id: w.partner_id, detail: `balance ${balance} but the ledger adds up to ${w.ledger_balance}` });
    if (Number(w.credit) !== Number(w.ledger_credit))
      findings.push({ check: 'sql:credit_vs_grants', partner_id: w.partner_id, detail: `credit limit ${w.credit} but grants add up to ${w.ledger_credit}` });
    if (Number(w.credit) !== p.creditLimitMinor)
      findings.push({ check: 'sql:credit_limit', partner_id: w.partner_id, detail: `credit limit ${w.credit}, the operator set ${p.creditLimitMinor}` });
    if (Number(w.adjustments) !== 0)
      findings.push({ check: 'sql:adjustments', partner_id: w.partner_id, detail: `${w.adjustments} adjustment row(s): nobody made one` });
    if (balance !== topups - netPayments + subAgencyCredit)
      findings.push({
        check: 'sql:wallet_equation',
        partner_id: w.partner_id,
        detail: `balance ${balance} ≠ top-ups ${topups} − net payments ${netPayments} + sub-agency credit ${subAgencyCredit}`,
      });
    findings.push(...topupFindings(p, topups, 'sql'));
    const completed = completedTotal.get(w.partner_id) ?? 0;
    if (netPayments !== completed)
      findings.push({
        check: 'sql:net_payments_vs_completed',
        partner_id: w.partner_id,
        detail: `net payments ${netPayments} but completed orders are worth ${completed}`,
      });
  }
  if (wallets.length !== pids.length)
    findings.push({ check: 'sql:wallet_missing', detail: `${pids.length - wallets.length} of the run's wallets are missing` });

  // Idempotency keys: per key (the workflow id), at most one debit not reversed, one order, one debit per run.
  const keys = (
    await db.query<{ workflow_id: string | null; debits: string; runs: string; orders: string; unreversed: string; partner_id: number }>(
      `select l.workflow_id, min(l.partner_id) as partner_id, count(*) as debits, count(distinct l.run_id) as runs, count(distinct l.order_id) as orders,
         count(*) filter (where not exists (select 1 from ledger_entries r where r.reverses_entry_id = l.id)) as unreversed
       from ledger_entries l where l.partner_id = any($1::int[]) and l.type = 'payment' group by l.workflow_id`,
      [pids],
    )
  ).rows;
  for (const k of keys) {
    if (k.workflow_id === null)
      findings.push({
        check: 'sql:debit_without_payment',
        partner_id: k.partner_id,
        detail: `${k.debits} payment row(s) written outside any payment workflow`,
      });
    else if (Number(k.unreversed) > 1 || Number(k.orders) !== 1 || Number(k.debits) !== Number(k.runs)) {
      findings.push({
        check: 'sql:key_debited_twice',
        partner_id: k.partner_id,
        detail: `${k.workflow_id}: ${k.debits} debit(s) in ${k.runs} run(s) for ${k.orders} order(s), ${k.unreversed} not reversed`,
      });
    }
  }
  const rebound = (
    await db.query<{ workflow_id: string; order_id: number; bound: number }>(
      `select l.workflow_id, l.order_id, pk.order_id as bound from ledger_entries l
       join payment_keys pk on l.workflow_id = 'pay:p' || pk.partner_id || ':key:' || pk.idempotency_key
       where l.partner_id = any($1::int[]) and l.type = 'payment' and l.order_id is distinct from pk.order_id`,
      [pids],
    )
  ).rows;
  for (const r of rebound)
    findings.push({
      check: 'sql:key_other_order',
      order_id: r.order_id,
      detail: `${r.workflow_id} debited order ${r.order_id}, its key is bound to order ${r.bound}`,
    });

  // Reversals: each gives back one payment of the same order, the same amount, once.
  const refunds = (
    await db.query<{
      id: number;
      partner_id: number;
      order_id: number | null;
      amount: string;
      reverses: number | null;
      p_type: string | null;
      p_order: number | null;
      p_amount: string | null;
      n: string;
    }>(
      `select r.id, r.partner_id, r.order_id, r.amount_minor as amount, r.reverses_entry_id as reverses, p.type as p_type, p.order_id as p_order, p.amount_minor as p_amount,
         count(*) over (partition by r.reverses_entry_id) as n
       from ledger_entries r left join ledger_entries p on p.id = r.reverses_entry_id
       where r.partner_id = any($1::int[]) and r.type = 'refund'`,
      [pids],
    )
  ).rows;
  for (const r of refunds) {
    if (r.p_type !== 'payment' || r.p_order !== r.order_id || r.p_amount !== r.amount || Number(r.n) !== 1) {
      findings.push({
        check: 'sql:bad_reversal',
        partner_id: r.partner_id,
        order_id: r.order_id ?? undefined,
        detail: `refund row ${r.id} of ${r.amount} reverses ${r.reverses ?? 'nothing'} (${r.p_type ?? '-'} of ${r.p_amount ?? '-'} for order ${r.p_order ?? '-'}; ${r.n} reversal(s) of it)`,
      });
    }
  }

  // The balance chain: every row's balance_after follows from the one before (no lost update).
  const chain = (
    await db.query<{ id: number; partner_id: number; direction: string; type: string; amount: string; balance_after: string }>(
      `select id, partner_id, direction, type, amount_minor as amount, balance_after_minor as balance_after
       from ledger_entries where partner_id = any($1::int[]) order by partner_id, id`,
      [pids],
    )
  ).rows;
  findings.push(
    ...chainFindings(
      chain.map((r) => ({
        id: Number(r.id),
        partner_id: r.partner_id,
        direction: r.direction,
        type: r.type,
        amount: Number(r.amount),
        balance_after: Number(r.balance_after),
      })),
      'sql',
    ),
  );
  return { findings, checked: { orders: orders.length, wallets: wallets.length, keys: keys.length, reversals: refunds.length, ledger_rows: chain.length } };
}

export function chainFindings(
  rows: Array<{ id: number; partner_id: number; direction: string; type: string; amount: number; balance_after: number }>,
  where: string,
): Finding[] {
  const findings: Finding[] = [];
  let partner = -1;
  let balance = 0;
  for (const r of rows) {
    if (r.partner_id !== partner) {
      partner = r.partner_id;
      balance = 0;
    }
    const expected = r.type === 'credit_grant' ? balance : balance + signed(r.direction, r.amount);
    if (r.balance_after !== expected) {
      findings.push({
        check: `${where}:balance_chain`,
        partner_id: r.partner_id,
        detail: `ledger row ${r.id} (${r.type} ${r.direction} ${r.amount}) says balance ${r.balance_after}, the rows before it make ${expected}`,
      });
    }
    balance = r.balance_after;
  }
  return findings;
}

/**
 * The books as the partner sees them (wallet, ledger and product orders over Interface A),
 * the payments' workflows as the operator sees them (admin inspect), and what the API
 * answered during the run.
 */
export async function apiChecks(http: Http, run: RunRecord): Promise<{ findings: Finding[]; warnings: Finding[]; checked: Record<string, number> }> {
  const findings: Finding[] = [];
  const runOrders = new Map(run.orders.map((o) => [o.id, o]));
  const finalStatus = new Map<number, string>();
  const unreversedDebit = new Map<number, number[]>(); // order → unreversed payment row ids
  const allPayments = new Map<number, number[]>(); // order → payment row ids
  let ledgerRows = 0;
  let inspected = 0;
  for (const p of run.partners) {
    const w = await http.partner(p, 'GET', '/api/partners/wallet/');
    if (w.status !== 200) throw new Error(`GET wallet as partner ${p.partner_id}: HTTP ${w.status}`);
    const wallet = w.json!.data as { balance: string; credit_limit: string; available: string };
    const balance = toMinor(wallet.balance);
    const creditLimit = toMinor(wallet.credit_limit);
    if (toMinor(wallet.available) !== balance + creditLimit)
      findings.push({
        check: 'api:available',
        partner_id: p.partner_id,
        detail: `available ${wallet.available} ≠ balance ${wallet.balance} + credit_limit ${wallet.credit_limit}`,
      });
    if (creditLimit !== p.creditLimitMinor)
      findings.push({ check: 'api:credit_limit', partner_id: p.partner_id, detail: `credit limit ${creditLimit}, the operator set ${p.creditLimitMinor}` });

    const ledger = (await allPages<ApiLedgerRow>(http, p, '/api/partners/ledger/')).map((r) => ({
      ...r,
      amountMinor: toMinor(r.amount),
      balanceAfterMinor: toMinor(r.balance_after),
    }));
    ledgerRows += ledger.length;
    const ids = new Set(ledger.map((r) => r.id));
    if (ids.size !== ledger.length)
      findings.push({
        check: 'api:ledger_pages',
        partner_id: p.partner_id,
        detail: `the ledger's pages repeat rows (${ledger.length} rows, ${ids.size} distinct)`,
      });
    ledger.sort((a, b) => a.id - b.id);
    findings.push(
      ...chainFindings(
        ledger.map((r) => ({
          id: r.id,
          partner_id: p.partner_id,
          direction: r.direction,
          type: r.type,
          amount: r.amountMinor,
          balance_after: r.balanceAfterMinor,
        })),
        'api',
      ),
    );
    let sum = 0;
    let grants = 0;
    let topups = 0;
    let subAgencyCredit = 0;
    const netByOrder = new Map<number, number>();
    const reversed = new Map<number, number>();
    const byId = new Map(ledger.map((r) => [r.id, r]));
    for (const r of ledger) {
      if (r.type === 'credit_grant') grants += signed(r.direction, r.amountMinor);
      else sum += signed(r.direction, r.amountMinor);
      if (r.type === 'topup') topups += r.amountMinor;
      if (r.type === 'sub_agency_credit') subAgencyCredit += signed(r.direction, r.amountMinor);
      const order = r.product_order ?? r.order;
      if (r.type === 'payment' && order !== null) {
        netByOrder.set(order, (netByOrder.get(order) ?? 0) + r.amountMinor);
        allPayments.set(order, [...(allPayments.get(order) ?? []), r.id]);
      }
      if (r.type === 'refund') {
        if (order !== null) netByOrder.set(order, (netByOrder.get(order) ?? 0) - r.amountMinor);
        const target = r.reverses === null ? undefined : byId.get(r.reverses);
        if (!target || target.type !== 'payment' || (target.product_order ?? target.order) !== order || target.amountMinor !== r.amountMinor) {
          findings.push({
            check: 'api:bad_reversal',
            partner_id: p.partner_id,
            order_id: order ?? undefined,
            detail: `refund row ${r.id} of ${r.amount} reverses ${r.reverses ?? 'nothing'}`,
          });
        }
        if (r.reverses !== null) reversed.set(r.reverses, (reversed.get(r.reverses) ?? 0) + 1);
      }
      if (r.type === 'adjustment')
        findings.push({ check: 'api:adjustment', partner_id: p.partner_id, detail: `ledger row ${r.id}: an adjustment nobody made` });
    }
    for (const [id, n] of reversed)
      if (n > 1) findings.push({ check: 'api:reversed_twice', partner_id: p.partner_id, detail: `payment row ${id} reversed ${n} times` });
    for (const r of ledger) {
      const order = r.product_order ?? r.order;
      if (r.type === 'payment' && order !== null && !reversed.has(r.id)) unreversedDebit.set(order, [...(unreversedDebit.get(order) ?? []), r.id]);
    }
    if (sum !== balance)
      findings.push({
        check: 'api:wallet_vs_ledger',
        partner_id: p.partner_id,
        detail: `wallet balance ${balance} but the partner's ledger adds up to ${sum}`,
      });
    if (grants !== creditLimit)
      findings.push({ check: 'api:credit_vs_grants', partner_id: p.partner_id, detail: `credit limit ${creditLimit} but the grants add up to ${grants}` });
    findings.push(...topupFindings(p, topups, 'api'));

    // A parent's list has its sub-agencies' orders too; a sub-agency's only its own.
    const listed = await allPages<ApiOrder>(http, p, '/api/partners/product-orders/');
    const orders = listed.filter((o) => runOrders.get(o.id)?.partner === p.index || !runOrders.has(o.id));
    const listedIds = new Set(listed.map((o) => o.id));
    for (const o of listed) {
      const owner = run.partners[runOrders.get(o.id)?.partner ?? -1];
      if (owner && owner.index !== p.index && owner.parent !== p.index)
        findings.push({
          check: 'api:sees_others_order',
          partner_id: p.partner_id,
          order_id: o.id,
          detail: `its order list has partner ${owner.partner_id}'s order`,
        });
    }
    for (const o of run.orders)
      if (run.partners[o.partner]?.parent === p.index && !listedIds.has(o.id))
        findings.push({
          check: 'api:parent_misses_child_order',
          partner_id: p.partner_id,
          order_id: o.id,
          detail: `its sub-agency's order is not in its list`,
        });
    let completedWorth = 0;
    for (const o of orders) {
      finalStatus.set(o.id, o.status);
      const total = toMinor(o.total_price_irt);
      const net = netByOrder.get(o.id) ?? 0;
      const unrev = unreversedDebit.get(o.id)?.length ?? 0;
      const mine = runOrders.get(o.id);
      if (!mine)
        findings.push({ check: 'api:order_unknown', partner_id: p.partner_id, order_id: o.id, detail: `order ${o.id} (${o.status}) was not made by this run` });
      else if (mine.totalMinor !== total)
        findings.push({ check: 'api:order_total', partner_id: p.partner_id, order_id: o.id, detail: `total ${total}, checkout said ${mine.totalMinor}` });
      if (o.status === 'completed') {
        completedWorth += total;
        if (net !== total || unrev !== 1)
          findings.push({
            check: 'api:completed_paid_once',
            partner_id: p.partner_id,
            order_id: o.id,
            detail: `completed for ${total}, paid ${net} net in ${unrev} unreversed debit(s)`,
          });
      } else if (o.status === 'processing') {
        findings.push({ check: 'api:stuck', partner_id: p.partner_id, order_id: o.id, detail: 'still processing' });
      } else if (net !== 0 || unrev !== 0) {
        findings.push({ check: 'api:not_completed_kept_money', partner_id: p.partner_id, order_id: o.id, detail: `${o.status} but ${net} net taken` });
      }
    }
    for (const [order, net] of netByOrder) {
      if (!orders.some((o) => o.id === order) && net !== 0)
        findings.push({
          check: 'api:money_for_unlisted_order',
          partner_id: p.partner_id,
          order_id: order,
          detail: `${net} net taken for an order not in the partner's list`,
        });
    }
    // The wallet, from the partner's side: what the operator put in, minus what was bought and what it granted its sub-agencies.
    const possible = new Set([p.topupsMinor]);
    for (const u of p.uncertainTopupsMinor) for (const v of [...possible]) possible.add(v + u);
    if (![...possible].some((t) => t - completedWorth + subAgencyCredit === balance)) {
      findings.push({
        check: 'api:wallet_equation',
        partner_id: p.partner_id,
        detail: `balance ${balance} ≠ top-ups ${[...possible].join('|')} − completed orders ${completedWorth} + sub-agency credit ${subAgencyCredit}`,
      });
    }
  }
  for (const o of run.orders)
    if (!finalStatus.has(o.id)) findings.push({ check: 'api:order_missing', order_id: o.id, detail: `order ${o.id} is not in its partner's list` });

  // Keys, through the operator's eyes: for an order debited more than once, each payment workflow (key) keeps at most one debit.
  for (const [order, rows] of allPayments) {
    if (rows.length < 2) continue;
    inspected += 1;
    const i = await inspect(http, order);
    const per = new Map<string, number>();
    // A reversal carries its payment's workflow id: per key, debits minus reversals.
    for (const l of i.ledger) {
      if (!l.workflow_id) continue;
      const d = l.type === 'payment' ? 1 : l.type === 'refund' ? -1 : 0;
      per.set(l.workflow_id, (per.get(l.workflow_id) ?? 0) + d);
    }
    for (const [wf, n] of per)
      if (n > 1) findings.push({ check: 'api:key_debited_twice', order_id: order, detail: `${wf}: ${n} debits not given back (admin order inspect)` });
  }

  // What the API answered during the run.
  const answers = new Map<string, Set<number>>(); // order/key → ledger ids answered
  const perOrder = new Map<number, Set<number>>();
  for (const r of run.pays) {
    if (r.outcome !== 'completed' || r.ledgerId === undefined) continue;
    const k = `${r.orderId}/${r.key}`;
    answers.set(k, (answers.get(k) ?? new Set()).add(r.ledgerId));
    perOrder.set(r.orderId, (perOrder.get(r.orderId) ?? new Set()).add(r.ledgerId));
  }
  for (const [k, ids] of answers)
    if (ids.size > 1)
      findings.push({ check: 'answers:same_key_different_payments', detail: `${k} answered ${ids.size} different payments (ledger ${[...ids].join(', ')})` });
  for (const [order, ids] of perOrder) {
    const status = finalStatus.get(order);
    if (ids.size > 1)
      findings.push({
        check: 'answers:order_paid_twice',
        order_id: order,
        detail: `answered paid by ${ids.size} different payments (ledger ${[...ids].join(', ')})`,
      });
    if (status !== 'completed')
      findings.push({ check: 'answers:paid_but_not_completed', order_id: order, detail: `answered 200 (paid) but the order is ${status}` });
    else {
      const unrev = unreversedDebit.get(order) ?? [];
      for (const id of ids)
        if (!unrev.includes(id))
          findings.push({
            check: 'answers:paid_by_another_row',
            order_id: order,
            detail: `answered paid by ledger row ${id}, but the order's standing debit is ${unrev.join(', ') || 'none'}`,
          });
    }
  }
  // A key refused (400) although its own payment holds the order's debit: the partner was
  // told "not payable" for a payment that succeeded. No money moved wrongly, so a warning.
  const warnings: Finding[] = [];
  const refused = run.pays.filter((r) => r.outcome === 'not_payable');
  const orderOf = new Map(run.orders.map((o) => [o.id, o]));
  for (const id of new Set(refused.map((r) => r.orderId))) {
    const o = orderOf.get(id);
    if (!o || finalStatus.get(id) !== 'completed') continue;
    inspected += 1;
    const i = await inspect(http, id);
    const per = new Map<string, number>();
    for (const l of i.ledger)
      if (l.workflow_id) per.set(l.workflow_id, (per.get(l.workflow_id) ?? 0) + (l.type === 'payment' ? 1 : l.type === 'refund' ? -1 : 0));
    const holder = [...per].find(([, n]) => n > 0)?.[0];
    const pid = run.partners[o.partner]!.partner_id;
    for (const r of refused.filter((x) => x.orderId === id)) {
      if (holder === `pay:p${pid}:key:${r.key}`) {
        warnings.push({
          check: 'answers:same_key_refused',
          partner_id: pid,
          order_id: id,
          detail: `key ${r.key} paid the order, yet a request with it was answered 400 "${r.error}" (after ${r.attempts} attempt(s))`,
        });
      }
    }
  }
  return {
    findings,
    warnings,
    checked: { partners: run.partners.length, orders: finalStatus.size, ledger_rows: ledgerRows, inspected_orders: inspected, answers: run.pays.length },
  };
}

/** `npm run admin -- reconcile`: the engine's own check of all the books; exit 0 when clean. */
export async function reconcileCheck(target: Target): Promise<{ exit: number; findings: number; finding_list: unknown[] }> {
  const out = await adminCli(target, ['reconcile', '--json']);
  let list: unknown[] = [];
  try {
    list = (JSON.parse(out.stdout) as { findings?: unknown[] }).findings ?? [];
  } catch {
    list = [{ detail: `unreadable answer (exit ${out.exit}): ${(out.stdout + out.stderr).trim().slice(0, 300)}` }];
  }
  return { exit: out.exit, findings: list.length, finding_list: list.slice(0, 10) };
}

/**
 * Temporal's side of "nothing is stuck": no payment workflow of the run's partners is still
 * running (a saga that never ended holds money or a lock even when its order looks settled).
 * Visibility lags a little behind, so a non-empty answer is asked again for a few seconds.
 */
export async function temporalChecks(
  address: string,
  namespace: string,
  run: RunRecord,
  waitMs = 30_000,
): Promise<{ findings: Finding[]; checked: Record<string, number> }> {
  const { Client, Connection } = await import('@temporalio/client');
  const connection = await Connection.connect({ address, connectTimeout: 10_000 });
  try {
    const client = new Client({ connection, namespace });
    const ids = run.partners.map((p) => p.partner_id).join(', ');
    const query = `WorkflowType = "payOrder" AND PartnerId IN (${ids}) AND ExecutionStatus = "Running"`;
    const deadline = Date.now() + waitMs;
    let running: Array<{ workflowId: string; stage: unknown }> = [];
    for (;;) {
      running = [];
      for await (const w of client.workflow.list({ query })) running.push({ workflowId: w.workflowId, stage: w.searchAttributes?.Stage });
      if (running.length === 0 || Date.now() >= deadline) break;
      await sleep(2000);
    }
    const total = (await client.workflow.count(`WorkflowType = "payOrder" AND PartnerId IN (${ids})`)).count;
    return {
      findings: running.map((w) => ({ check: 'temporal:payment_running', detail: `${w.workflowId} still running (Stage ${JSON.stringify(w.stage)})` })),
      checked: { payment_workflows: total },
    };
  } finally {
    await connection.close();
  }
}
