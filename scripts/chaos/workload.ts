/**
 * The load: partners created through the admin API, and a parent agency with sub-agencies
 * (one made by an operator, the others by the parent; credit and markups set by the parent
 * and an operator), product orders prepared through Interface A (basket + checkout), then
 * pays of five kinds, shuffled, by every partner and sub-agency alike: plain, same-key
 * storms, different-key races on one order, sandbox scenarios; and half-way, a top-up of
 * the partners kept short of credit and the parent's changes of its grants.
 */
import type { Http, Partner, PayRecord } from './http';
import { sleep } from './target';
import { toMinor } from './http';
import type { Options, Scenario } from './options';
import { SCENARIOS } from './options';
import { seededRandom } from '../seeded-random';

export interface RunPartner extends Partner {
  index: number;
  tight: boolean;
  /** Top-ups the admin API confirmed. */
  topupsMinor: number;
  /** Top-ups whose answer was lost: they may or may not be in the books. */
  uncertainTopupsMinor: number[];
  creditLimitMinor: number;
  /** A sub-agency's parent (index into partners): its credit limit is what the parent granted it, and it is never topped up. */
  parent?: number;
}

/** A parent's setting of a sub-agency's credit limit, and what came of it. */
export interface RunGrant {
  parent: number;
  child: number;
  key: string;
  limitMinor: number;
  /** set and replayed changed (or kept) the limit; the refusals changed nothing; unanswered: unknown until sent again. */
  outcome: 'set' | 'replayed' | 'insufficient' | 'refused' | 'conflict' | 'other' | 'unanswered';
  status: number | null;
  when: 'prepare' | 'load' | 'settle';
}

export type OrderKind = 'plain' | 'storm' | 'race' | Scenario;

export interface RunOrder {
  id: number;
  partner: number; // index into partners
  totalMinor: number;
  kind: OrderKind;
}

export interface Decision {
  orderId: number;
  action: 'retry' | 'compensate';
  exit: number;
  after: string;
  ms: number;
}

/** Everything the checks need, also written to the run file for --verify-only. */
export interface RunRecord {
  runId: string;
  startedAt: string;
  target: string;
  partners: RunPartner[];
  orders: RunOrder[];
  pays: PayRecord[];
  decisions: Decision[];
  /** Every credit set of the parents' sub-agencies, in the order sent (absent in records of runs without sub-agencies). */
  grants?: RunGrant[];
  /** What the admin API answered an operator granting a sub-agency credit of the company's own (it must refuse). */
  operatorChildCreditStatus?: number;
}

/** A small deterministic PRNG: the same --seed gives the same shuffle. */
export const prng = seededRandom;

export function shuffle<T>(items: T[], rnd: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

const must = (r: { status: number; text: string }, what: string, ok = [200, 201]) => {
  if (!ok.includes(r.status)) throw new Error(`${what}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
};

/** Partners (no money yet), their orders, then the money each partner gets. */
export async function prepare(http: Http, opts: Options, runId: string, rnd: () => number, log: (m: string) => void): Promise<RunRecord> {
  const partners: RunPartner[] = [];
  for (let i = 0; i < opts.partners; i++) {
    const r = await http.admin<Partner & { error?: string }>('POST', '/admin/partners', { name: `chaos-${runId}-p${i + 1}` });
    if (r.status !== 201) throw new Error(`admin partner create: HTTP ${r.status} ${JSON.stringify(r.json)}`);
    partners.push({ ...r.json, index: i, tight: i >= opts.partners - opts.tightPartners, topupsMinor: 0, uncertainTopupsMinor: [], creditLimitMinor: 0 });
  }
  const sub = opts.subAgencies > 0 ? await prepareSubAgencies(http, opts, runId, partners) : null;
  // The product's data plans: orders of different prices.
  const product = await http.partner(partners[0]!, 'GET', '/api/products/products/1/');
  must(product, 'GET product 1');
  const variants = ((product.json?.data as { variants?: Array<{ id: number }> })?.variants ?? []).map((v) => v.id);

  // Which orders of what kind go to which partner: scenarios and storms on funded partners
  // (so that the supplier is reached), races and plain pays everywhere.
  const funded = partners.filter((p) => !p.tight);
  const fundedPick = (i: number) => (funded.length ? funded[i % funded.length]! : partners[i % partners.length]!);
  const wanted: Array<{ partner: RunPartner; kind: OrderKind }> = [];
  for (let i = 0; i < opts.pays; i++) wanted.push({ partner: partners[i % partners.length]!, kind: 'plain' });
  for (let i = 0; i < opts.storms; i++) wanted.push({ partner: fundedPick(i), kind: 'storm' });
  for (let i = 0; i < opts.races; i++) wanted.push({ partner: partners[(i * 7 + 3) % partners.length]!, kind: 'race' });
  if (opts.scenarios) {
    let n = 0;
    for (const s of SCENARIOS) for (let i = 0; i < opts.scenarioPays; i++) wanted.push({ partner: fundedPick(n++), kind: s });
  }

  // One open basket per partner: a partner's orders are made one after the other, partners in parallel.
  const orders: RunOrder[] = [];
  let made = 0;
  await Promise.all(
    partners.map(async (p) => {
      for (const w of wanted.filter((x) => x.partner === p)) {
        const variant = variants.length ? variants[Math.floor(rnd() * variants.length)] : undefined;
        const quantity = 1 + Math.floor(rnd() * 2);
        const add = await http.partner(p, 'POST', '/api/products/basket/items/', { product: 1, ...(variant ? { variant } : {}), quantity });
        must(add, `partner ${p.partner_id}: basket item`);
        const out = await http.partner(p, 'POST', '/api/products/checkout/', { payment_method: 'PARTNER_CREDIT' });
        must(out, `partner ${p.partner_id}: checkout`);
        const data = out.json!.data as { id: number; total_price_irt: string };
        orders.push({ id: data.id, partner: p.index, totalMinor: toMinor(data.total_price_irt), kind: w.kind });
        if (++made % 200 === 0) log(`prepared ${made}/${wanted.length} orders`);
      }
    }),
  );

  // Money: funded partners can pay everything twice over; tight ones about 60% of theirs.
  const worth = (p: RunPartner) => orders.filter((o) => o.partner === p.index).reduce((s, o) => s + o.totalMinor, 0);
  const grants: RunGrant[] = [];
  for (const p of partners) {
    if (p.parent !== undefined) continue;
    const total = worth(p);
    // A parent also funds what it grants its sub-agencies, now and half-way.
    const children = partners.filter((c) => c.parent === p.index);
    const granted = children.reduce((s, c) => s + firstGrant(c, worth(c)) + Math.round(worth(c) * 0.1), 0);
    const topup = (p.tight ? Math.round(total * 0.3) : total * 2) + granted;
    const credit = p.tight ? Math.round(total * 0.3) : Math.round(total * 0.1);
    const t = await http.admin('POST', `/admin/partners/${p.partner_id}/topup`, { amount: (topup / 100).toFixed(2), note: `chaos ${runId}` });
    if (t.status !== 200) throw new Error(`admin topup partner ${p.partner_id}: HTTP ${t.status} ${JSON.stringify(t.json)}`);
    p.topupsMinor += topup;
    const c = await http.admin('POST', `/admin/partners/${p.partner_id}/credit-limit`, { amount: (credit / 100).toFixed(2) });
    if (c.status !== 200) throw new Error(`admin credit-limit partner ${p.partner_id}: HTTP ${c.status} ${JSON.stringify(c.json)}`);
    p.creditLimitMinor = credit;
  }
  // Each sub-agency's credit, from its parent; the first set sent twice must be a replay.
  for (const c of partners.filter((x) => x.parent !== undefined)) {
    const parent = partners[c.parent!]!;
    const key = `chaos-${runId}-grant-c${c.partner_id}-1`;
    for (let i = 0; i < 2; i++) {
      const g = await setChildCredit(http, parent, c, firstGrant(c, worth(c)), key, 'prepare');
      grants.push(g);
      if (g.outcome !== (i === 0 ? 'set' : 'replayed'))
        throw new Error(`parent ${parent.partner_id}: credit of sub-agency ${c.partner_id}: ${g.outcome} (HTTP ${g.status})`);
    }
  }
  orders.sort((a, b) => a.id - b.id);
  return {
    runId,
    startedAt: new Date().toISOString(),
    target: '',
    partners,
    orders,
    pays: [],
    decisions: [],
    grants,
    ...(sub ? { operatorChildCreditStatus: sub.operatorChildCreditStatus } : {}),
  };
}

/** A sub-agency's first credit: a funded one can pay all of its orders and more, a tight one about 60% of them. */
const firstGrant = (c: RunPartner, worth: number) => Math.round(worth * (c.tight ? 0.6 : 1.3));

const asDecimal = (minor: number) => (minor / 100).toFixed(2);

/**
 * One more partner, the parent, and its sub-agencies: the first created by an operator
 * (`POST /admin/partners/{parent}/agencies`, as `admin agency child create`), the others by
 * the parent (`POST /api/partners/agencies/`); the parent's markups on products, set by an
 * operator for the first and by the parent for the others. An operator's attempt to give a
 * sub-agency credit of the company's own is answered, and recorded for the checks.
 */
async function prepareSubAgencies(http: Http, opts: Options, runId: string, partners: RunPartner[]): Promise<{ operatorChildCreditStatus: number }> {
  const made = await http.admin<Partner & { error?: string }>('POST', '/admin/partners', { name: `chaos-${runId}-parent` });
  if (made.status !== 201) throw new Error(`admin partner create (parent): HTTP ${made.status} ${JSON.stringify(made.json)}`);
  const parent: RunPartner = { ...made.json, index: partners.length, tight: false, topupsMinor: 0, uncertainTopupsMinor: [], creditLimitMinor: 0 };
  partners.push(parent);
  for (let i = 0; i < opts.subAgencies; i++) {
    const name = `chaos-${runId}-parent-c${i + 1}`;
    let credentials: Partner;
    if (i === 0) {
      const r = await http.admin<Partner>('POST', `/admin/partners/${parent.partner_id}/agencies`, { name });
      if (r.status !== 201) throw new Error(`admin sub-agency create: HTTP ${r.status} ${JSON.stringify(r.json)}`);
      credentials = r.json;
    } else {
      const r = await http.partner(parent, 'POST', '/api/partners/agencies/', { name });
      must(r, `parent ${parent.partner_id}: sub-agency create`, [201]);
      credentials = r.json!.data as Partner;
    }
    const child: RunPartner = {
      ...credentials,
      index: partners.length,
      tight: opts.subAgencies > 1 && i === opts.subAgencies - 1,
      topupsMinor: 0,
      uncertainTopupsMinor: [],
      creditLimitMinor: 0,
      parent: parent.index,
    };
    partners.push(child);
    if (i === 0) {
      const r = await http.admin('POST', `/admin/partners/${parent.partner_id}/agencies/${child.partner_id}/markups`, { service: 'products', percent: '5' });
      if (r.status !== 200) throw new Error(`admin sub-agency markup: HTTP ${r.status} ${JSON.stringify(r.json)}`);
    } else {
      const r = await http.partner(parent, 'PUT', `/api/partners/agencies/${child.partner_id}/markups/`, {
        markups: [{ service: 'products', percent: String(5 + i), fixed: '1000.00' }],
      });
      must(r, `parent ${parent.partner_id}: markups of sub-agency ${child.partner_id}`, [200]);
    }
  }
  const first = partners[parent.index + 1]!;
  const refused = await http.admin('POST', `/admin/partners/${first.partner_id}/credit-limit`, { amount: '1000.00' });
  return { operatorChildCreditStatus: refused.status };
}

/** The parent sets a sub-agency's credit limit through its own endpoint, with an idempotency key; the child's tracked limit follows what was set. */
export async function setChildCredit(
  http: Http,
  parent: RunPartner,
  child: RunPartner,
  limitMinor: number,
  key: string,
  when: RunGrant['when'],
): Promise<RunGrant> {
  const r = await http.partnerKeyed(parent, `/api/partners/agencies/${child.partner_id}/credit/`, {
    credit_limit: asDecimal(limitMinor),
    idempotency_key: key,
  });
  const base = { parent: parent.index, child: child.index, key, limitMinor, status: r?.status ?? null, when };
  if (!r) return { ...base, outcome: 'unanswered' };
  if (r.status === 200) {
    child.creditLimitMinor = limitMinor;
    return { ...base, outcome: (r.json?.data as { replayed?: boolean } | undefined)?.replayed ? 'replayed' : 'set' };
  }
  const outcome = r.status === 402 ? 'insufficient' : r.status === 400 ? 'refused' : r.status === 409 ? 'conflict' : 'other';
  return { ...base, outcome };
}

export interface LoadStats {
  planned_requests: number;
  answered_requests: number;
  jobs: number;
  jobs_skipped_deadline: number;
  seconds: number;
  midrun_topups: number;
  /** Time the load held back new jobs so that the faults stay spread over it (per slot). */
  waited_for_faults_s: number;
}

export const keyOf = (runId: string, orderId: number, suffix = '') => `chaos-${runId}-o${orderId}${suffix}`;

export function plannedRequests(run: RunRecord, opts: Options): number {
  return run.orders.reduce((n, o) => n + (o.kind === 'storm' ? opts.stormSize : o.kind === 'race' ? opts.raceKeys : 1), 0);
}

/** Runs every order's pay job with `concurrency` jobs in flight; progress() is answered/planned. */
export class Load {
  answered = 0;
  done = false;
  readonly planned: number;
  private skipped = 0;
  private topups = 0;

  constructor(
    private readonly http: Http,
    private readonly opts: Options,
    private readonly run: RunRecord,
    private readonly rnd: () => number,
    private readonly log: (m: string) => void,
  ) {
    this.planned = plannedRequests(run, opts);
  }

  progress = () => (this.planned ? this.answered / this.planned : 1);

  private record(r: PayRecord) {
    this.run.pays.push(r);
    this.answered += 1;
    if (this.answered % 100 === 0) this.log(`load: ${this.answered}/${this.planned} pay requests answered`);
  }

  private async job(o: RunOrder): Promise<void> {
    const p = this.run.partners[o.partner]!;
    const key = keyOf(this.run.runId, o.id);
    if (o.kind === 'storm') {
      const all = await Promise.all(Array.from({ length: this.opts.stormSize }, () => this.http.pay(p, o.id, key)));
      all.forEach((r) => this.record(r));
      return;
    }
    if (o.kind === 'race') {
      const all = await Promise.all(Array.from({ length: this.opts.raceKeys }, (_, j) => this.http.pay(p, o.id, keyOf(this.run.runId, o.id, `-k${j}`))));
      all.forEach((r) => this.record(r));
      return;
    }
    if (o.kind === 'plain') {
      this.record(await this.http.pay(p, o.id, key));
      return;
    }
    const first = await this.http.pay(p, o.id, key, o.kind);
    this.record(first);
    // docs/guides/idempotency.md: after a refusal the order is payable again, with the same key.
    if (o.kind === 'supplier_reject' && first.outcome === 'refused') this.run.pays.push(await this.http.pay(p, o.id, key));
  }

  /** A top-up while payments run, for the partners short of credit. */
  private async midRunTopups() {
    for (const p of this.run.partners.filter((x) => x.tight)) {
      const total = this.run.orders.filter((o) => o.partner === p.index).reduce((s, o) => s + o.totalMinor, 0);
      const amount = Math.round(total * 0.1);
      try {
        const r = await this.http.admin(
          'POST',
          `/admin/partners/${p.partner_id}/topup`,
          { amount: (amount / 100).toFixed(2), note: `chaos ${this.run.runId} mid-run` },
          { attempts: 3 },
        );
        if (r.status === 200) p.topupsMinor += amount;
        else if (r.status >= 500) p.uncertainTopupsMinor.push(amount);
        this.topups += 1;
      } catch {
        p.uncertainTopupsMinor.push(amount);
      }
    }
  }

  /**
   * The parents' changes of their grants while payments run: more credit for a sub-agency
   * kept short, some taken back from a funded one (no more than it cannot have used).
   */
  private async midRunGrants() {
    for (const c of this.run.partners.filter((x) => x.parent !== undefined)) {
      const parent = this.run.partners[c.parent!]!;
      const worth = this.run.orders.filter((o) => o.partner === c.index).reduce((s, o) => s + o.totalMinor, 0);
      const limit = c.creditLimitMinor + (c.tight ? 1 : -2) * Math.round(worth * 0.1);
      const g = await setChildCredit(this.http, parent, c, limit, `chaos-${this.run.runId}-grant-c${c.partner_id}-2`, 'load');
      (this.run.grants ??= []).push(g);
      this.log(`mid-run: parent ${parent.partner_id} sets sub-agency ${c.partner_id}'s credit to ${asDecimal(limit)}: ${g.outcome}`);
    }
  }

  /** The fault plan's brake: no new job while progress is past it (bounded by the deadline). */
  gate: () => number = () => 1;
  private gatedMs = 0;

  async runAll(loadDeadlineAt: number): Promise<LoadStats> {
    const started = Date.now();
    const queue = shuffle([...this.run.orders], this.rnd);
    const jobs = queue.length;
    let topupsDone = false;
    await Promise.all(
      Array.from({ length: this.opts.concurrency }, async () => {
        for (;;) {
          if (!topupsDone && this.progress() >= 0.5) {
            topupsDone = true;
            await this.midRunTopups();
            await this.midRunGrants();
          }
          if (this.progress() > this.gate() && queue.length && Date.now() < loadDeadlineAt) {
            const t = Date.now();
            await sleep(200);
            this.gatedMs += Date.now() - t;
            continue;
          }
          const o = queue.shift();
          if (!o) return;
          if (Date.now() >= loadDeadlineAt) {
            this.skipped += 1;
            continue;
          }
          await this.job(o);
        }
      }),
    );
    this.done = true;
    return {
      planned_requests: this.planned,
      answered_requests: this.answered,
      jobs,
      jobs_skipped_deadline: this.skipped,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      midrun_topups: this.topups,
      waited_for_faults_s: Math.round(this.gatedMs / this.opts.concurrency / 100) / 10,
    };
  }
}
