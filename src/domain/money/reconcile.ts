import { sql } from 'drizzle-orm';
import { rowsOf, type DbOrTx } from '../../db/client';
import { formatDecimal } from './money';
import { trialBalance } from '../reports/trial-balance';

export interface Finding {
  kind:
    | 'wallet_balance'
    | 'wallet_credit_limit'
    | 'order_payment'
    | 'payment_without_outcome'
    | 'hold_past_expiry'
    | 'transfer_unbalanced'
    | 'currency_not_zero'
    | 'wallet_account'
    | 'entry_not_posted'
    | 'adjustment_not_posted'
    | 'trial_balance_not_zero'
    | 'sub_agency'
    | 'flight_change';
  /** The partner concerned; null for a finding about the company's own accounts. */
  partner_id: number | null;
  order_id?: number;
  detail: string;
}

/**
 * The books must add up: every transfer balances (its two accounts share its currency); the
 * accounts of each currency sum to zero; every wallet's balance is the sum of its signed
 * movements and the balance of its account, and its credit limit the sum of its grants and
 * the balance of its credit line; every ledger row moved its account by exactly its amount;
 * the trial balance of all the books sums to zero in each currency; every posted manual
 * adjustment is one ledger row of its amount and one transfer between its wallet and
 * `adjustments:CUR`, and every adjustment row of the ledger is one of them; every parent's
 * sub-agencies (one level, in its currency) hold together as credit limits exactly what its
 * wallet gave them, and its margin account holds only its sub-agencies' sales; a completed order was paid exactly its price (net of
 * reversals and price changes); an order that did not complete keeps nothing; no payment
 * stays under way longer than `stuckAfterMs`; and no unpaid hold (a room, a PNR, tour
 * seats, villa dates) outlives its deadline by more than that: its expiry timer failed.
 */
export async function reconcile(db: DbOrTx, now: Date, stuckAfterMs: number): Promise<{ findings: Finding[]; checked: { wallets: number; orders: number } }> {
  const findings: Finding[] = [];
  const wallets = rowsOf<{ partner_id: number; balance: string; credit: string; ledger_balance: string; ledger_credit: string; currency: string }>(
    await db.execute(sql`
      select w.partner_id, w.balance_minor as balance, w.credit_limit_minor as credit, w.currency,
        coalesce(sum(case when l.type <> 'credit_grant' then (case l.direction when 'credit' then l.amount_minor else -l.amount_minor end) end), 0) as ledger_balance,
        coalesce(sum(case when l.type = 'credit_grant' then (case l.direction when 'credit' then l.amount_minor else -l.amount_minor end) end), 0) as ledger_credit
      from wallets w left join ledger_entries l on l.partner_id = w.partner_id
      group by w.partner_id, w.balance_minor, w.credit_limit_minor, w.currency`),
  );
  for (const w of wallets) {
    if (Number(w.balance) !== Number(w.ledger_balance)) {
      findings.push({
        kind: 'wallet_balance',
        partner_id: w.partner_id,
        detail: `balance ${formatDecimal(Number(w.balance), w.currency)} but the ledger adds up to ${formatDecimal(Number(w.ledger_balance), w.currency)}`,
      });
    }
    if (Number(w.credit) !== Number(w.ledger_credit)) {
      findings.push({
        kind: 'wallet_credit_limit',
        partner_id: w.partner_id,
        detail: `credit limit ${formatDecimal(Number(w.credit), w.currency)} but the grants add up to ${formatDecimal(Number(w.ledger_credit), w.currency)}`,
      });
    }
  }

  findings.push(...(await checkBooks(db)));
  findings.push(...(await checkTrialBalance(db)));
  findings.push(...(await checkAdjustments(db)));
  findings.push(...(await checkSubAgencies(db)));

  const orders = rowsOf<{
    id: number;
    partner_id: number;
    status: string;
    total: string;
    currency: string;
    paid: string;
    updated_at: string;
    payment_workflow_id: string | null;
  }>(
    await db.execute(sql`
      select o.id, o.partner_id, o.status, o.total_price_minor as total, o.currency, o.updated_at, o.payment_workflow_id,
        coalesce(sum(case when l.type = 'payment' then l.amount_minor when l.type = 'refund' then -l.amount_minor else 0 end), 0) as paid
      from orders o left join ledger_entries l on l.order_id = o.id
        -- A flight change under way has moved the wallet and not yet the order's price (src/domain/flights/changes.ts).
        and not exists (select 1 from flight_changes fc where fc.order_id = o.id and fc.status = 'confirming'
          and l.step in ('flight-change-' || fc.id, 'flight-change-' || fc.id || '-undo'))
      group by o.id`),
  );
  for (const o of orders) {
    const paid = Number(o.paid);
    const total = Number(o.total);
    const money = (n: number) => formatDecimal(n, o.currency);
    if (o.status === 'completed' && paid !== total) {
      findings.push({ kind: 'order_payment', partner_id: o.partner_id, order_id: o.id, detail: `completed for ${money(total)} but paid ${money(paid)} net` });
    }
    if (['pending', 'failed', 'expired'].includes(o.status) && paid !== 0) {
      findings.push({ kind: 'order_payment', partner_id: o.partner_id, order_id: o.id, detail: `${o.status} but ${money(paid)} net was taken` });
    }
    if (o.status === 'processing' && now.getTime() - new Date(o.updated_at).getTime() > stuckAfterMs) {
      findings.push({
        kind: 'payment_without_outcome',
        partner_id: o.partner_id,
        order_id: o.id,
        detail: `payment under way since ${new Date(o.updated_at).toISOString()} (workflow ${o.payment_workflow_id}); see Stage = "needs_attention" in Temporal Web`,
      });
    }
  }
  // Unpaid holds past their deadline: the expiry workflow should have released them. One
  // being paid (processing) or paid (completed) is not unpaid.
  const stale = rowsOf<{ what: string; id: number; partner_id: number; order_id: number | null; deadline: string }>(
    await db.execute(sql`
      select 'hotel booking' as what, h.id, h.partner_id, h.order_id, h.expires_at as deadline from hotel_bookings h
        left join orders o on o.id = h.order_id
        where h.status in ('prebooked', 'held') and h.expires_at is not null and (o.status is null or o.status in ('pending', 'failed', 'expired'))
      union all
      select 'flight booking', f.id, f.partner_id, f.order_id, f.ticket_time_limit from flight_bookings f
        left join orders o on o.id = f.order_id
        where f.status = 'booked' and f.ticket_time_limit is not null and (o.status is null or o.status in ('pending', 'failed', 'expired'))
      union all
      select 'tour prebook', t.id, t.partner_id, t.order_id, t.expires_at from tour_prebooks t
        left join orders o on o.id = t.order_id
        where t.status = 'held' and (o.status is null or o.status in ('pending', 'failed', 'expired'))
      union all
      select 'villa reservation', r.id, r.partner_id, r.order_id, r.expires_at from reservations r
        left join orders o on o.id = r.order_id
        where r.status = 'held' and (o.status is null or o.status in ('pending', 'failed', 'expired'))`),
  );
  for (const h of stale) {
    const deadline = new Date(h.deadline);
    if (now.getTime() - deadline.getTime() <= stuckAfterMs) continue;
    findings.push({
      kind: 'hold_past_expiry',
      partner_id: h.partner_id,
      ...(h.order_id === null ? {} : { order_id: h.order_id }),
      detail: `${h.what} ${h.id} is still held, unpaid, ${Math.round((now.getTime() - deadline.getTime()) / 60_000)} min past its deadline ${deadline.toISOString()}: its expiry workflow did not release it`,
    });
  }
  findings.push(...(await checkFlightChanges(db, now, stuckAfterMs)));
  return { findings, checked: { wallets: wallets.length, orders: orders.length } };
}

/**
 * Flight changes (src/domain/flights/changes.ts): a confirmed one moved the wallet by exactly
 * its total, once, and kept it; a failed one kept nothing; none stays under way longer than
 * `stuckAfterMs`.
 */
async function checkFlightChanges(db: DbOrTx, now: Date, stuckAfterMs: number): Promise<Finding[]> {
  const changes = rowsOf<{
    id: number;
    partner_id: number;
    order_id: number;
    status: string;
    total: string;
    currency: string;
    created_at: string;
    kept: string;
    moves: string;
  }>(
    await db.execute(sql`
      select fc.id, fc.partner_id, fc.order_id, fc.status, fc.total_minor as total, fc.currency, fc.created_at,
        coalesce(sum(case when l.direction = 'debit' then l.amount_minor else -l.amount_minor end), 0) as kept,
        count(l.id) filter (where l.step = 'flight-change-' || fc.id) as moves
      from flight_changes fc left join ledger_entries l on l.order_id = fc.order_id
        and l.step in ('flight-change-' || fc.id, 'flight-change-' || fc.id || '-undo')
      group by fc.id`),
  );
  const findings: Finding[] = [];
  for (const c of changes) {
    const kept = Number(c.kept);
    const total = Number(c.total);
    const money = (n: number) => formatDecimal(n, c.currency);
    const finding = (detail: string) =>
      findings.push({ kind: 'flight_change', partner_id: c.partner_id, order_id: c.order_id, detail: `change ${c.id}: ${detail}` });
    if (Number(c.moves) > 1) finding(`moved the wallet ${c.moves} times`);
    if (c.status === 'confirmed' && kept !== total) finding(`confirmed for ${money(total)} but ${money(kept)} was kept`);
    if (c.status === 'failed' && kept !== 0) finding(`failed but ${money(kept)} was kept`);
    if (c.status === 'confirming' && now.getTime() - new Date(c.created_at).getTime() > stuckAfterMs) {
      finding(`under way since ${new Date(c.created_at).toISOString()}; see Stage = "needs_attention" in Temporal Web`);
    }
  }
  return findings;
}

/** The double-entry invariants (src/domain/money/books.ts), each checked rather than assumed. */
async function checkBooks(db: DbOrTx): Promise<Finding[]> {
  const findings: Finding[] = [];
  const unbalanced = rowsOf<{ id: number; ledger_entry_id: number; detail: string }>(
    await db.execute(sql`
      select t.id, t.ledger_entry_id, t.debit_account || ' (' || coalesce(d.currency, 'no account') || ') to ' || t.credit_account
        || ' (' || coalesce(c.currency, 'no account') || ') in ' || t.currency || ', amount ' || t.amount_minor as detail
      from transfers t left join accounts d on d.code = t.debit_account left join accounts c on c.code = t.credit_account
      where d.currency is distinct from t.currency or c.currency is distinct from t.currency or t.amount_minor <= 0 or t.debit_account = t.credit_account`),
  );
  for (const t of unbalanced) {
    findings.push({
      kind: 'transfer_unbalanced',
      partner_id: null,
      detail: `transfer ${t.id} (ledger row ${t.ledger_entry_id}) does not balance: ${t.detail}`,
    });
  }
  const sums = rowsOf<{ currency: string; total: string }>(
    await db.execute(sql`
      select a.currency, sum(m.amount) as total from accounts a join (
        select credit_account as code, amount_minor as amount from transfers
        union all select debit_account, -amount_minor from transfers
      ) m on m.code = a.code group by a.currency having sum(m.amount) <> 0`),
  );
  for (const c of sums) {
    findings.push({
      kind: 'currency_not_zero',
      partner_id: null,
      detail: `the accounts in ${c.currency} sum to ${formatDecimal(Number(c.total), c.currency)}, not zero`,
    });
  }
  const wallets = rowsOf<{
    partner_id: number;
    currency: string;
    balance: string;
    credit: string;
    account_balance: string;
    credit_line: string;
    other_currency: string | null;
  }>(
    await db.execute(sql`
      select w.partner_id, w.currency, w.balance_minor as balance, w.credit_limit_minor as credit,
        coalesce((select sum(case when t.credit_account = a.code then t.amount_minor else -t.amount_minor end)
          from transfers t where t.credit_account = a.code or t.debit_account = a.code), 0) as account_balance,
        coalesce((select sum(case when t.credit_account = cl.code then t.amount_minor else -t.amount_minor end)
          from transfers t where t.credit_account = cl.code or t.debit_account = cl.code), 0) as credit_line,
        (select string_agg(x.code || ' in ' || x.currency, ', ') from accounts x
          where x.code in ('wallet:' || w.partner_id, 'credit_line:' || w.partner_id) and x.currency <> w.currency) as other_currency
      from wallets w
      left join accounts a on a.code = 'wallet:' || w.partner_id
      left join accounts cl on cl.code = 'credit_line:' || w.partner_id`),
  );
  for (const w of wallets) {
    const money = (n: string) => formatDecimal(Number(n), w.currency);
    if (Number(w.balance) !== Number(w.account_balance)) {
      findings.push({
        kind: 'wallet_account',
        partner_id: w.partner_id,
        detail: `balance ${money(w.balance)} but its account wallet:${w.partner_id} holds ${money(w.account_balance)}`,
      });
    }
    if (Number(w.credit) !== Number(w.credit_line)) {
      findings.push({
        kind: 'wallet_account',
        partner_id: w.partner_id,
        detail: `credit limit ${money(w.credit)} but its account credit_line:${w.partner_id} holds ${money(w.credit_line)}`,
      });
    }
    if (w.other_currency) findings.push({ kind: 'wallet_account', partner_id: w.partner_id, detail: `the wallet is in ${w.currency} but ${w.other_currency}` });
  }
  const entries = rowsOf<{ id: number; partner_id: number; currency: string; signed: string; posted: string }>(
    await db.execute(sql`
      select l.id, l.partner_id, w.currency, case l.direction when 'credit' then l.amount_minor else -l.amount_minor end as signed,
        coalesce(sum(case when t.credit_account = own.code then t.amount_minor when t.debit_account = own.code then -t.amount_minor else 0 end), 0) as posted
      from ledger_entries l
      join wallets w on w.partner_id = l.partner_id
      cross join lateral (select case when l.type = 'credit_grant' then 'credit_line:' else 'wallet:' end || l.partner_id as code) own
      left join transfers t on t.ledger_entry_id = l.id
      group by l.id, l.partner_id, w.currency, l.direction, l.amount_minor
      having coalesce(sum(case when t.credit_account = own.code then t.amount_minor when t.debit_account = own.code then -t.amount_minor else 0 end), 0)
        <> case l.direction when 'credit' then l.amount_minor else -l.amount_minor end`),
  );
  for (const e of entries) {
    findings.push({
      kind: 'entry_not_posted',
      partner_id: e.partner_id,
      detail: `ledger row ${e.id} moved the wallet by ${formatDecimal(Number(e.signed), e.currency)} but its transfers move its account by ${formatDecimal(Number(e.posted), e.currency)}`,
    });
  }
  return findings;
}

/** Every currency's accounts, through the trial balance operators read: debits equal credits, and the balances sum to zero. */
async function checkTrialBalance(db: DbOrTx): Promise<Finding[]> {
  const { totals } = await trialBalance(db, null);
  return totals
    .filter((t) => t.balanceMinor !== 0 || t.debitsMinor !== t.creditsMinor)
    .map((t) => ({
      kind: 'trial_balance_not_zero' as const,
      partner_id: null,
      detail: `the trial balance in ${t.currency} sums to ${formatDecimal(t.balanceMinor, t.currency)} (debits ${formatDecimal(t.debitsMinor, t.currency)}, credits ${formatDecimal(t.creditsMinor, t.currency)}), not zero`,
    }));
}

/** Manual adjustments (src/domain/money/adjustments.ts): each posted one is its ledger row and its one transfer, and no adjustment row of the ledger is without one. */
async function checkAdjustments(db: DbOrTx): Promise<Finding[]> {
  const findings: Finding[] = [];
  const posted = rowsOf<{
    id: number;
    partner_id: number;
    amount: string;
    currency: string;
    entry: number | null;
    type: string | null;
    entry_partner: number | null;
    signed: string | null;
    transfers: string;
    moved: string;
  }>(
    await db.execute(sql`
      select a.id, a.partner_id, a.amount_minor as amount, a.currency, l.id as entry, l.type, l.partner_id as entry_partner,
        case l.direction when 'credit' then l.amount_minor when 'debit' then -l.amount_minor end as signed,
        (select count(*) from transfers t where t.ledger_entry_id = l.id) as transfers,
        (select coalesce(sum(case when t.credit_account = 'wallet:' || a.partner_id then t.amount_minor else -t.amount_minor end), 0) from transfers t
          where t.ledger_entry_id = l.id and t.kind = 'adjustment' and t.currency = a.currency
            and ((t.debit_account = 'adjustments:' || a.currency and t.credit_account = 'wallet:' || a.partner_id)
              or (t.credit_account = 'adjustments:' || a.currency and t.debit_account = 'wallet:' || a.partner_id))) as moved
      from wallet_adjustments a left join ledger_entries l on l.id = a.ledger_entry_id
      where a.status = 'posted'`),
  );
  for (const a of posted) {
    const money = (n: string | number) => formatDecimal(Number(n), a.currency);
    const wrong =
      a.entry === null
        ? 'its ledger row is missing'
        : a.type !== 'adjustment' || a.entry_partner !== a.partner_id
          ? `its ledger row ${a.entry} is a ${a.type} of partner ${a.entry_partner}`
          : Number(a.signed) !== Number(a.amount)
            ? `its ledger row ${a.entry} moved the wallet by ${money(a.signed!)}`
            : Number(a.transfers) !== 1 || Number(a.moved) !== Number(a.amount)
              ? `its ledger row ${a.entry} has ${a.transfers} transfers moving wallet:${a.partner_id} against adjustments:${a.currency} by ${money(a.moved)}`
              : null;
    if (wrong) findings.push({ kind: 'adjustment_not_posted', partner_id: a.partner_id, detail: `adjustment ${a.id} of ${money(a.amount)}: ${wrong}` });
  }
  const orphans = rowsOf<{ id: number; partner_id: number }>(
    await db.execute(sql`
      select l.id, l.partner_id from ledger_entries l
      where l.type = 'adjustment' and not exists (select 1 from wallet_adjustments a where a.ledger_entry_id = l.id)`),
  );
  for (const l of orphans) {
    findings.push({
      kind: 'adjustment_not_posted',
      partner_id: l.partner_id,
      detail: `ledger row ${l.id} is an adjustment no operator made (no wallet_adjustments row posts it)`,
    });
  }
  return findings;
}

/**
 * Sub-agencies (src/domain/sub-agencies.ts): one level deep and in their parent's currency; the
 * credit limits of a parent's sub-agencies add up to what its wallet gave them (its
 * `sub_agency_credit` rows), every credit line of theirs was fed from `agency_credit:P` alone,
 * which nets to zero; `agency_margin:P` moved only with sales of P's sub-agencies, and each of
 * their sales with a margin for P moved it.
 */
async function checkSubAgencies(db: DbOrTx): Promise<Finding[]> {
  const findings: Finding[] = [];
  const shape = rowsOf<{ id: number; detail: string }>(
    await db.execute(sql`
      select c.id, case when p.parent_id is not null then 'its parent ' || p.id || ' is a sub-agency itself'
        else 'its wallet is in ' || cw.currency || ', its parent''s in ' || pw.currency end as detail
      from partners c join partners p on p.id = c.parent_id
      join wallets cw on cw.partner_id = c.id join wallets pw on pw.partner_id = p.id
      where p.parent_id is not null or cw.currency <> pw.currency`),
  );
  for (const s of shape) findings.push({ kind: 'sub_agency', partner_id: s.id, detail: `sub-agency ${s.id}: ${s.detail}` });
  const parents = rowsOf<{ parent_id: number; currency: string; limits: string; given: string; clearing: string; foreign_lines: string }>(
    await db.execute(sql`
      select p.id as parent_id, pw.currency,
        (select coalesce(sum(w.credit_limit_minor), 0) from wallets w join partners c on c.id = w.partner_id where c.parent_id = p.id) as limits,
        (select coalesce(sum(case l.direction when 'debit' then l.amount_minor else -l.amount_minor end), 0) from ledger_entries l
          where l.partner_id = p.id and l.type = 'sub_agency_credit') as given,
        (select coalesce(sum(case when t.credit_account = 'agency_credit:' || p.id then t.amount_minor else -t.amount_minor end), 0) from transfers t
          where t.credit_account = 'agency_credit:' || p.id or t.debit_account = 'agency_credit:' || p.id) as clearing,
        (select count(*) from transfers t join partners c on t.credit_account = 'credit_line:' || c.id or t.debit_account = 'credit_line:' || c.id
          where c.parent_id = p.id and 'agency_credit:' || p.id not in (t.credit_account, t.debit_account)) as foreign_lines
      from partners p join wallets pw on pw.partner_id = p.id
      where exists (select 1 from partners c where c.parent_id = p.id)`),
  );
  for (const p of parents) {
    const money = (n: string) => formatDecimal(Number(n), p.currency);
    if (Number(p.limits) !== Number(p.given) || Number(p.clearing) !== 0 || Number(p.foreign_lines) !== 0) {
      findings.push({
        kind: 'sub_agency',
        partner_id: p.parent_id,
        detail: `its sub-agencies' credit limits add up to ${money(p.limits)}, its wallet gave them ${money(p.given)}; agency_credit:${p.parent_id} holds ${money(p.clearing)}; ${p.foreign_lines} transfers fed their credit lines from elsewhere`,
      });
    }
  }
  const strayMargins = rowsOf<{ id: number; account: string; order_id: number | null }>(
    await db.execute(sql`
      select t.id, a.code as account, t.order_id from transfers t
      join accounts a on a.code in (t.credit_account, t.debit_account) and a.kind = 'agency_margin'
      left join orders o on o.id = t.order_id left join partners c on c.id = o.partner_id
      where c.parent_id is null or a.code <> 'agency_margin:' || c.parent_id`),
  );
  for (const t of strayMargins) {
    findings.push({
      kind: 'sub_agency',
      partner_id: null,
      ...(t.order_id === null ? {} : { order_id: t.order_id }),
      detail: `transfer ${t.id} moves ${t.account} for no sale of that parent's sub-agencies`,
    });
  }
  // The other way round: each parent's margin went to that parent's account, and a sub-agency's sale with one posted it.
  const misposted = rowsOf<{ id: number; order_id: number | null; kind: string; debit_account: string; credit_account: string }>(
    await db.execute(sql`
      select t.id, t.order_id, t.kind, t.debit_account, t.credit_account from transfers t
      left join orders o on o.id = t.order_id left join partners c on c.id = o.partner_id
      where t.kind in ('agency_margin', 'agency_margin_reversal')
        and (c.parent_id is null or 'agency_margin:' || c.parent_id not in (t.debit_account, t.credit_account))`),
  );
  for (const t of misposted) {
    findings.push({
      kind: 'sub_agency',
      partner_id: null,
      ...(t.order_id === null ? {} : { order_id: t.order_id }),
      detail: `transfer ${t.id} (${t.kind}) moves ${t.debit_account} to ${t.credit_account}, not its parent's agency_margin account`,
    });
  }
  const unposted = rowsOf<{ ledger_entry_id: number; order_id: number; partner_id: number }>(
    await db.execute(sql`
      select l.id as ledger_entry_id, o.id as order_id, o.partner_id from ledger_entries l
      join orders o on o.id = l.order_id join partners c on c.id = o.partner_id
      where l.type = 'payment' and c.parent_id is not null and o.agency_margin_minor > 0 and o.margin_minor > 0
        and not exists (select 1 from transfers t where t.ledger_entry_id = l.id and t.kind = 'agency_margin')`),
  );
  for (const u of unposted) {
    findings.push({
      kind: 'sub_agency',
      partner_id: u.partner_id,
      order_id: u.order_id,
      detail: `payment ${u.ledger_entry_id} of sub-agency ${u.partner_id}'s order ${u.order_id} posted none of its parent's margin`,
    });
  }
  return findings;
}
