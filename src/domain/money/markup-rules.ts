import { and, asc, eq, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { MARKUP_SERVICES, partners, pricingRules, type MarkupService } from '../../db/schema';
import { DomainError, notFound, validation } from '../errors';
import { isStorableId } from '../ids';
import { convert, rateFor } from './fx';
import { chooseRule, markupWith, type Markup, type MarkupRule, type SaleContext } from './markup';
import { parseAmount } from './money';
import { readCache } from '../read-cache';
import { agencyMarkupFor } from './agency-markup-reads';

/**
 * The operators' pricing rules (docs/decisions/pricing-rules.md): kept in `pricing_rules`,
 * read through a cache of a few seconds per service (a search prices many rates with one
 * read), forgotten at once on a change made by this process.
 */

export type PricingRuleRow = typeof pricingRules.$inferSelect;

/** The suppliers a rule may name. */
export const MARKUP_SUPPLIERS = ['simulator', 'duffel'] as const;

/** Highest percent a rule takes: 1000% (100000 hundredths). */
export const MAX_PERCENT_HUNDREDTHS = 100_000;

/** How long a process keeps the rules it read: another replica's change is seen within this. */
export const RULES_TTL_MS = 5_000;

const cache = readCache({ max: MARKUP_SERVICES.length * 4, ttlMs: RULES_TTL_MS });

/** Drops the rules this process keeps for `db`: after a transaction that set or removed one commits (its own forget saw the transaction's handle). */
export const forgetRules = (db: object) => cache.forget(db);

const PERCENT = /^(0|[1-9]\d*)(\.\d{1,2})?$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** "7.5" → 750 hundredths of a percent; refused naming `percent`: not a decimal with at most two places, or above 1000. */
export function parsePercent(input: unknown): number {
  const text = typeof input === 'number' && Number.isFinite(input) ? String(input) : typeof input === 'string' ? input.trim() : undefined;
  if (text === undefined || !PERCENT.test(text)) throw validation('percent', 'must be a non-negative decimal with at most two decimals, e.g. "7.5"');
  const [whole, frac = ''] = text.split('.') as [string, string?];
  const hundredths = Number(whole) * 100 + Number(frac.padEnd(2, '0'));
  if (!Number.isSafeInteger(hundredths) || hundredths > MAX_PERCENT_HUNDREDTHS) throw validation('percent', 'must be at most 1000');
  return hundredths;
}

/** 750 → "7.5". */
export function formatPercent(hundredths: number): string {
  const whole = Math.floor(hundredths / 100);
  const frac = String(hundredths % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : String(whole);
}

function parseDay(field: string, input: unknown): string | null {
  if (input === undefined || input === null) return null;
  const text = typeof input === 'string' ? input.trim() : '';
  const parsed = DAY.test(text) ? new Date(`${text}T00:00:00Z`) : null;
  if (!parsed || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== text) {
    throw validation(field, 'must be a calendar date, YYYY-MM-DD');
  }
  return text;
}

/** What an operator sends to set a rule: decimals as they type them (percent "7.5", amounts "2.50"). */
export interface RuleInput {
  service: unknown;
  partner?: unknown;
  supplier?: unknown;
  percent?: unknown;
  fixed?: unknown;
  min_margin?: unknown;
  from?: unknown;
  to?: unknown;
}

/**
 * A new rule, from now on. Refused (validation, naming the field): an unknown service or
 * supplier, a partner that does not exist, a negative or malformed percent or amount, none
 * of the three set above zero, a `from` after `to`.
 */
export async function setRule(db: DbOrTx, input: RuleInput & { currency: string; operator: string }): Promise<PricingRuleRow> {
  const service = input.service;
  if (typeof service !== 'string' || !(MARKUP_SERVICES as readonly string[]).includes(service)) {
    throw validation('service', `must be one of ${MARKUP_SERVICES.join(', ')}`);
  }
  let partnerId: number | null = null;
  if (input.partner !== undefined && input.partner !== null) {
    const raw = String(input.partner);
    if (!/^[1-9]\d{0,9}$/.test(raw) || !isStorableId(Number(raw))) throw validation('partner', 'must be a partner id (a positive integer)');
    const [found] = await db
      .select({ id: partners.id })
      .from(partners)
      .where(eq(partners.id, Number(raw)));
    if (!found) throw validation('partner', `no partner ${raw}`);
    partnerId = found.id;
  }
  let supplier: string | null = null;
  if (input.supplier !== undefined && input.supplier !== null) {
    if (typeof input.supplier !== 'string' || !(MARKUP_SUPPLIERS as readonly string[]).includes(input.supplier)) {
      throw validation('supplier', `must be one of ${MARKUP_SUPPLIERS.join(', ')}`);
    }
    supplier = input.supplier;
  }
  const percentHundredths = input.percent === undefined || input.percent === null ? 0 : parsePercent(input.percent);
  const fixed = input.fixed === undefined || input.fixed === null ? 0 : parseAmount('fixed', input.fixed, { allowZero: true });
  const minMargin = input.min_margin === undefined || input.min_margin === null ? 0 : parseAmount('min_margin', input.min_margin, { allowZero: true });
  if (percentHundredths === 0 && fixed === 0 && minMargin === 0) {
    throw validation('percent', 'a rule sets at least one of percent, fixed and min_margin above zero');
  }
  const validFrom = parseDay('from', input.from);
  const validTo = parseDay('to', input.to);
  if (validFrom !== null && validTo !== null && validFrom > validTo) throw validation('to', `must not be before from (${validFrom})`);
  const [row] = await db
    .insert(pricingRules)
    .values({
      service: service as MarkupService,
      partnerId,
      supplier,
      percentHundredths,
      fixed,
      minMargin,
      currency: input.currency,
      validFrom,
      validTo,
      createdBy: input.operator,
    })
    .returning();
  cache.forget(db);
  return row!;
}

/** The rules, oldest first: those in force, and with `removed` the removed ones too. */
export async function listRules(db: DbOrTx, opts: { removed?: boolean } = {}): Promise<PricingRuleRow[]> {
  return db
    .select()
    .from(pricingRules)
    .where(opts.removed ? undefined : isNull(pricingRules.removedAt))
    .orderBy(asc(pricingRules.id));
}

/** Removes a rule from now on (it stays, named by the orders it priced). Removing it again is a conflict. */
export async function removeRule(db: DbOrTx, id: number, operator: string, now: Date = new Date()): Promise<PricingRuleRow> {
  const [row] = isStorableId(id) ? await db.select().from(pricingRules).where(eq(pricingRules.id, id)) : [];
  if (!row) throw notFound(`pricing rule ${id}`);
  const [removed] = await db
    .update(pricingRules)
    .set({ removedAt: now, removedBy: operator })
    .where(and(eq(pricingRules.id, id), isNull(pricingRules.removedAt)))
    .returning();
  cache.forget(db);
  if (!removed) throw new DomainError('conflict', `pricing rule ${id} was removed at ${row.removedAt!.toISOString()} by ${row.removedBy}`);
  return removed;
}

const ruleOf = (r: PricingRuleRow): MarkupRule => ({
  id: r.id,
  service: r.service,
  partnerId: r.partnerId,
  supplier: r.supplier,
  percentHundredths: r.percentHundredths,
  fixedMinor: r.fixed,
  minMarginMinor: r.minMargin,
  validFrom: r.validFrom,
  validTo: r.validTo,
});

/** The rules not removed of a service in `currency`, read at most every RULES_TTL_MS per process. */
function rulesOf(db: DbOrTx, service: MarkupService, currency: string): Promise<MarkupRule[]> {
  return cache.read(db, `${service}:${currency}`, async () => {
    const rows = await db
      .select()
      .from(pricingRules)
      .where(and(eq(pricingRules.service, service), eq(pricingRules.currency, currency), isNull(pricingRules.removedAt)));
    return rows.map(ruleOf);
  });
}

/** What a sale is priced with: where the rules are and the wallet's currency (PricingDeps has both). */
export interface MarkupDeps {
  db: DbOrTx;
  currency: string;
}

/** The markup of a sale made `now`: the most specific rule in force that day (UTC), or none. */
export async function markupFor(deps: MarkupDeps, sale: Omit<SaleContext, 'day'> & { now: Date }): Promise<Markup> {
  const rules = await rulesOf(deps.db, sale.service, deps.currency);
  // A sub-agency buys at the operator's price to its parent, with its parent's markup on top.
  const agency = await agencyMarkupFor(deps.db, sale.partnerId, sale.service);
  const partnerId = agency?.parentId ?? sale.partnerId;
  const context: SaleContext = { service: sale.service, partnerId, supplier: sale.supplier, day: sale.now.toISOString().slice(0, 10) };
  return markupWith(chooseRule(rules, context), agency);
}

/** Who supplies the services the engine prices itself (products, tours, residence, visa). */
export const OWN_SUPPLIER = 'simulator';

/**
 * What the engine's own catalogue (products, tours, residence, visa) is priced with: the
 * wallet's currency, the currency the catalogue is kept in (CURRENCY), and how old a rate
 * between them may be (PricingDeps has all of them).
 */
export interface CatalogueDeps extends MarkupDeps {
  catalogueCurrency: string;
  maxRateAgeMs: number;
}

/** Where the catalogue's currency and the rates' age bound come from: the engine's settings (PricingDeps has both). */
export type CatalogueSettings = Pick<CatalogueDeps, 'catalogueCurrency' | 'maxRateAgeMs'>;

/**
 * How a catalogue net becomes the wallet's: itself in the catalogue's currency, else
 * converted at the current rate (src/domain/money/fx.ts: one rounding; no rate, or a stale one,
 * refuses the sale with `currency_unavailable`).
 */
export async function catalogueToWallet(deps: CatalogueDeps, now: Date): Promise<((netMinor: number) => number) | undefined> {
  const { catalogueCurrency: from, currency: to } = deps;
  if (from === to) return undefined;
  const { rate } = await rateFor(deps.db, { from, to, now, maxAgeMs: deps.maxRateAgeMs });
  return (amountMinor) => convert({ amountMinor, from, to, rate });
}

/** The markup of a sale of a service the engine prices itself, to `partnerId`, made `now`, on nets in the wallet's currency. */
export async function ownMarkup(deps: CatalogueDeps, service: MarkupService, partnerId: number, now: Date = new Date()): Promise<Markup> {
  const markup = await markupFor(deps, { service, partnerId, supplier: OWN_SUPPLIER, now });
  const toWallet = await catalogueToWallet(deps, now);
  return toWallet ? markupWith(markup.rule, markup.agency, toWallet) : markup;
}

/**
 * The markup of the rule that priced an order (a stay change re-prices with it); none when it
 * names none. A sub-agency's order adds its parent's markup for the service as it is now. With
 * `deps`, on catalogue nets converted into the wallet's currency at today's rate.
 */
export async function markupOfRule(
  db: DbOrTx,
  ruleId: number | null,
  sale?: { partnerId: number; service: MarkupService },
  deps?: CatalogueDeps,
  now: Date = new Date(),
): Promise<Markup> {
  const agency = sale ? await agencyMarkupFor(db, sale.partnerId, sale.service) : null;
  const toWallet = deps ? await catalogueToWallet(deps, now) : undefined;
  if (ruleId === null) return markupWith(null, agency, toWallet);
  const [row] = await db.select().from(pricingRules).where(eq(pricingRules.id, ruleId));
  return markupWith(row ? ruleOf(row) : null, agency, toWallet);
}
