/**
 * The chain's checks after the run (docs/decisions/sub-agencies.md), from SQL and through
 * the APIs: no sub-agency ever spent more than its parent had granted it by then; the
 * parent's wallet gave exactly the credit its sub-agencies hold, so its available credit
 * is what is left after its grants; and the parent's `agency_margin:P` account holds the
 * agency margins of its sub-agencies' orders that stand.
 */
import type { Http } from './http';
import { toMinor } from './http';
import { allPages, inspect, type Finding, type Queryable } from './verify';
import { setChildCredit, type RunPartner, type RunRecord } from './workload';

const signed = (direction: string, amount: number) => (direction === 'credit' ? amount : -amount);

interface LedgerRow {
  id: number;
  partner_id: number;
  type: string;
  direction: string;
  amount: number;
  balance_after: number;
}

/** The run's parents, each with its sub-agencies. */
export function chains(run: RunRecord): Array<{ parent: RunPartner; children: RunPartner[] }> {
  return run.partners
    .filter((p) => run.partners.some((c) => c.parent === p.index))
    .map((parent) => ({ parent, children: run.partners.filter((c) => c.parent === parent.index) }));
}

/**
 * A sub-agency's ledger, oldest first: after every row its balance is at least minus the
 * credit its parent had granted it by then (its `credit_grant` rows so far).
 */
export function overspendFindings(rows: LedgerRow[], where: string): Finding[] {
  const findings: Finding[] = [];
  const granted = new Map<number, number>();
  for (const r of rows) {
    const limit = (granted.get(r.partner_id) ?? 0) + (r.type === 'credit_grant' ? signed(r.direction, r.amount) : 0);
    granted.set(r.partner_id, limit);
    if (r.balance_after + limit < 0)
      findings.push({
        check: `${where}:child_over_grant`,
        partner_id: r.partner_id,
        detail: `after ledger row ${r.id} (${r.type} ${r.direction} ${r.amount}) it owes ${-r.balance_after}, its parent had granted ${limit}`,
      });
  }
  return findings;
}

/** What the run set as each sub-agency's credit limit, summed for a parent. */
const trackedGrants = (children: RunPartner[]) => children.reduce((s, c) => s + c.creditLimitMinor, 0);

/** The parent's available credit as the run made it: its top-ups and credit, less its own completed orders and what it granted. */
function expectedAvailable(parent: RunPartner, ownCompleted: number, granted: number): number {
  return parent.topupsMinor + parent.creditLimitMinor - ownCompleted - granted;
}

/** The grants' own answers, and the operator's attempt at a sub-agency's credit: each a finding when wrong. */
export function grantFindings(run: RunRecord): Finding[] {
  const findings: Finding[] = [];
  for (const g of run.grants ?? []) {
    if (g.outcome === 'set' || g.outcome === 'replayed') continue;
    const child = run.partners[g.child]!;
    findings.push({
      check: g.outcome === 'unanswered' ? 'grant:unanswered' : 'grant:refused',
      partner_id: child.partner_id,
      detail: `the parent's credit set to ${g.limitMinor} (key ${g.key}, ${g.when}) answered ${g.status ?? 'nothing'}: ${g.outcome}, though its wallet and the sub-agency's use allowed it`,
    });
  }
  const s = run.operatorChildCreditStatus;
  if (s !== undefined && (s < 400 || s >= 500))
    findings.push({
      check: 'admin:child_credit',
      detail: `an operator's credit limit for a sub-agency was answered ${s}; only its parent may grant it credit`,
    });
  return findings;
}

/** Grants whose answer was lost, sent again with their key: each either was made (a replay now) or is made now. */
export async function resendUnansweredGrants(http: Http, run: RunRecord, log: (m: string) => void): Promise<void> {
  for (const g of run.grants ?? []) {
    if (g.outcome !== 'unanswered') continue;
    const again = await setChildCredit(http, run.partners[g.parent]!, run.partners[g.child]!, g.limitMinor, g.key, 'settle');
    log(`grant ${g.key} sent again: ${again.outcome}`);
    Object.assign(g, { outcome: again.outcome, status: again.status, when: 'settle' });
  }
}

/** The chain from SQL. */
export async function subAgencySqlChecks(db: Queryable, run: RunRecord): Promise<{ findings: Finding[]; checked: Record<string, number> }> {
  const findings: Finding[] = [];
  let rows = 0;
  for (const { parent, children } of chains(run)) {
    const ids = children.map((c) => c.partner_id);
    const ledger = (
      await db.query<{ id: number; partner_id: number; type: string; direction: string; amount: string; balance_after: string }>(
        `select id, partner_id, type, direction, amount_minor as amount, balance_after_minor as balance_after
         from ledger_entries where partner_id = any($1::int[]) order by partner_id, id`,
        [ids],
      )
    ).rows.map((r) => ({ ...r, id: Number(r.id), amount: Number(r.amount), balance_after: Number(r.balance_after) }));
    rows += ledger.length;
    findings.push(...overspendFindings(ledger, 'sql'));
    const [chain] = (
      await db.query<{ given: string; limits: string; child_grants: string; agency_credit: string; balance: string; credit: string; own_completed: string }>(
        `select
           (select coalesce(sum(case direction when 'debit' then amount_minor else -amount_minor end), 0)
              from ledger_entries where partner_id = $1 and type = 'sub_agency_credit') as given,
           (select coalesce(sum(credit_limit_minor), 0) from wallets where partner_id = any($2::int[])) as limits,
           (select coalesce(sum(case direction when 'credit' then amount_minor else -amount_minor end), 0)
              from ledger_entries where partner_id = any($2::int[]) and type = 'credit_grant') as child_grants,
           (select coalesce(sum(case when credit_account = 'agency_credit:' || $1 then amount_minor else -amount_minor end), 0)
              from transfers where 'agency_credit:' || $1 in (credit_account, debit_account)) as agency_credit,
           (select balance_minor from wallets where partner_id = $1) as balance,
           (select credit_limit_minor from wallets where partner_id = $1) as credit,
           (select coalesce(sum(total_price_minor), 0) from orders where partner_id = $1 and status = 'completed') as own_completed`,
        [parent.partner_id, ids],
      )
    ).rows;
    const [given, limits, childGrants] = [Number(chain!.given), Number(chain!.limits), Number(chain!.child_grants)];
    const tracked = trackedGrants(children);
    if (given !== limits || given !== childGrants || given !== tracked)
      findings.push({
        check: 'sql:parent_grants',
        partner_id: parent.partner_id,
        detail: `its wallet gave ${given}, its sub-agencies' limits are ${limits} from grants of ${childGrants}; the run set ${tracked}`,
      });
    if (Number(chain!.agency_credit) !== 0)
      findings.push({
        check: 'sql:agency_credit',
        partner_id: parent.partner_id,
        detail: `agency_credit:${parent.partner_id} holds ${chain!.agency_credit}, not 0`,
      });
    const available = Number(chain!.balance) + Number(chain!.credit);
    const expected = expectedAvailable(parent, Number(chain!.own_completed), tracked);
    if (available !== expected)
      findings.push({
        check: 'sql:parent_available',
        partner_id: parent.partner_id,
        detail: `available ${available}; top-ups ${parent.topupsMinor} + credit ${parent.creditLimitMinor} − own completed ${chain!.own_completed} − granted ${tracked} = ${expected}`,
      });
    const [margin] = (
      await db.query<{ posted: string; standing: string; orders: string }>(
        `select
           (select coalesce(sum(case when credit_account = 'agency_margin:' || $1 then amount_minor else -amount_minor end), 0)
              from transfers where 'agency_margin:' || $1 in (credit_account, debit_account)) as posted,
           (select coalesce(sum(agency_margin_minor), 0) from orders where partner_id = any($2::int[]) and status = 'completed') as standing,
           (select count(*) from orders where partner_id = any($2::int[]) and status = 'completed') as orders`,
        [parent.partner_id, ids],
      )
    ).rows;
    findings.push(...marginFindings(parent, Number(margin!.posted), Number(margin!.standing), Number(margin!.orders), 'sql'));
  }
  return { findings, checked: { parents: chains(run).length, sub_agency_ledger_rows: rows } };
}

function marginFindings(parent: RunPartner, posted: number, standing: number, completed: number, where: string): Finding[] {
  const findings: Finding[] = [];
  if (posted !== standing)
    findings.push({
      check: `${where}:agency_margin`,
      partner_id: parent.partner_id,
      detail: `agency_margin:${parent.partner_id} holds ${posted}; its sub-agencies' completed orders carry agency margins of ${standing}`,
    });
  // The markups make every sale of theirs carry a margin: none at all means the check above compared nothing.
  if (completed > 0 && standing <= 0)
    findings.push({
      check: `${where}:agency_margin_none`,
      partner_id: parent.partner_id,
      detail: `${completed} completed sub-agency orders, no agency margin on any`,
    });
  return findings;
}

interface ApiSubAgency {
  id: number;
  balance: string;
  credit_limit: string;
  available: string;
}

/** The trial balance's balance of one account, over the run's days (GET /admin/reports/trial-balance, a CSV). */
async function accountBalance(http: Http, run: RunRecord, account: string): Promise<number> {
  const from = (run.startedAt || new Date().toISOString()).slice(0, 10);
  const to = new Date().toISOString().slice(0, 10);
  const r = await http.adminText(`/admin/reports/trial-balance?from=${from}&to=${to}`);
  if (r.status !== 200) throw new Error(`admin trial balance: HTTP ${r.status} ${r.text.slice(0, 200)}`);
  const [header, ...lines] = r.text.trim().split(/\r?\n/);
  const cols = header!.split(',');
  const [accountAt, balanceAt] = [cols.indexOf('account'), cols.indexOf('balance')];
  const row = lines.map((l) => l.split(',')).find((c) => c[accountAt] === account);
  return row ? toMinor(row[balanceAt]!) : 0;
}

/** The chain through the APIs: the parent's and sub-agencies' own views, and the operators' trial balance and order inspection. */
export async function subAgencyApiChecks(http: Http, run: RunRecord): Promise<{ findings: Finding[]; checked: Record<string, number> }> {
  const findings: Finding[] = [...grantFindings(run)];
  let inspected = 0;
  for (const { parent, children } of chains(run)) {
    const listed = await http.partner(parent, 'GET', '/api/partners/agencies/');
    if (listed.status !== 200) throw new Error(`GET sub-agencies as parent ${parent.partner_id}: HTTP ${listed.status}`);
    const views = new Map((listed.json!.data as ApiSubAgency[]).map((v) => [v.id, v]));
    if (views.size !== children.length || children.some((c) => !views.has(c.partner_id)))
      findings.push({
        check: 'api:sub_agency_list',
        partner_id: parent.partner_id,
        detail: `it lists sub-agencies ${[...views.keys()].join(', ')}; it has ${children.map((c) => c.partner_id).join(', ')}`,
      });
    let listedLimits = 0;
    let standing = 0;
    let completed = 0;
    for (const c of children) {
      const w = await http.partner(c, 'GET', '/api/partners/wallet/');
      if (w.status !== 200) throw new Error(`GET wallet as sub-agency ${c.partner_id}: HTTP ${w.status}`);
      const own = w.json!.data as { balance: string; credit_limit: string };
      const view = views.get(c.partner_id);
      listedLimits += view ? toMinor(view.credit_limit) : 0;
      if (!view || toMinor(view.balance) !== toMinor(own.balance) || toMinor(view.credit_limit) !== toMinor(own.credit_limit))
        findings.push({
          check: 'api:sub_agency_view',
          partner_id: c.partner_id,
          detail: `its parent sees ${view ? `balance ${view.balance}, credit ${view.credit_limit}` : 'nothing'}; it sees balance ${own.balance}, credit ${own.credit_limit}`,
        });
      const ledger = (await allPages<{ id: number; type: string; direction: string; amount: string; balance_after: string }>(http, c, '/api/partners/ledger/'))
        .map((r) => ({
          id: r.id,
          partner_id: c.partner_id,
          type: r.type,
          direction: r.direction,
          amount: toMinor(r.amount),
          balance_after: toMinor(r.balance_after),
        }))
        .sort((a, b) => a.id - b.id);
      findings.push(...overspendFindings(ledger, 'api'));
      for (const o of await allPages<{ id: number; status: string }>(http, c, '/api/partners/product-orders/')) {
        if (o.status !== 'completed') continue;
        const i = await inspect(http, o.id);
        inspected += 1;
        completed += 1;
        standing += toMinor(i.order.price_parts?.agency_margin ?? '0');
      }
    }
    const parentLedger = await allPages<{ type: string; direction: string; amount: string }>(http, parent, '/api/partners/ledger/');
    const given = -parentLedger.filter((r) => r.type === 'sub_agency_credit').reduce((s, r) => s + signed(r.direction, toMinor(r.amount)), 0);
    const tracked = trackedGrants(children);
    if (given !== tracked || listedLimits !== tracked)
      findings.push({
        check: 'api:parent_grants',
        partner_id: parent.partner_id,
        detail: `its ledger gave ${given}, it lists credit limits of ${listedLimits}; the run set ${tracked}`,
      });
    const w = await http.partner(parent, 'GET', '/api/partners/wallet/');
    if (w.status !== 200) throw new Error(`GET wallet as parent ${parent.partner_id}: HTTP ${w.status}`);
    const available = toMinor((w.json!.data as { available: string }).available);
    const own = (await allPages<{ id: number; status: string; total_price_irt: string }>(http, parent, '/api/partners/product-orders/')).filter(
      (o) => o.status === 'completed' && run.orders.some((x) => x.id === o.id && x.partner === parent.index),
    );
    const ownCompleted = own.reduce((s, o) => s + toMinor(o.total_price_irt), 0);
    const expected = expectedAvailable(parent, ownCompleted, tracked);
    if (available !== expected)
      findings.push({
        check: 'api:parent_available',
        partner_id: parent.partner_id,
        detail: `available ${available}; top-ups ${parent.topupsMinor} + credit ${parent.creditLimitMinor} − own completed ${ownCompleted} − granted ${tracked} = ${expected}`,
      });
    findings.push(...marginFindings(parent, await accountBalance(http, run, `agency_margin:${parent.partner_id}`), standing, completed, 'api'));
  }
  return { findings, checked: { parents: chains(run).length, inspected_sub_agency_orders: inspected } };
}
