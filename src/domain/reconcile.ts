import { sql } from 'drizzle-orm';
import { rowsOf, type DbOrTx } from '../db/client';
import { formatDecimal } from './money';

export interface Finding {
  kind: 'wallet_balance' | 'wallet_credit_limit' | 'order_payment' | 'payment_without_outcome' | 'hold_past_expiry';
  partner_id: number;
  order_id?: number;
  detail: string;
}

/**
 * The books must add up: every wallet's balance is the sum of its signed movements and its
 * credit limit the sum of its grants; a completed order was paid exactly its price (net of
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
  return { findings, checked: { wallets: wallets.length, orders: orders.length } };
}
