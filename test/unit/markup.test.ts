import fc from 'fast-check';
import { MARKUP_SERVICES } from '../../src/db/schema';
import {
  applies,
  chooseRule,
  marginOf,
  markupWith,
  netAtLeast,
  netAtMost,
  sellPrice,
  summedPrice,
  type MarkupRule,
  type SaleContext,
} from '../../src/domain/money/markup';
import { formatPercent, parsePercent } from '../../src/domain/money/markup-rules';
import { DomainError } from '../../src/domain/errors';
import { CurrencyAmountError } from '../../src/platform/currency';
import { MAX_AMOUNT_MINOR } from '../../src/domain/money/money';

const rule = (over: Partial<MarkupRule> = {}): MarkupRule => ({
  id: 1,
  service: 'hotels',
  partnerId: null,
  supplier: null,
  percentHundredths: 0,
  fixedMinor: 0,
  minMarginMinor: 0,
  validFrom: null,
  validTo: null,
  ...over,
});

const sale: SaleContext = { service: 'hotels', partnerId: 7, supplier: 'simulator', day: '2026-11-27' };

describe('the margin of a rule', () => {
  it('is the percent of net, rounded once half away from zero, plus the fixed amount', () => {
    // 7.5% of 1001 minor units is 75.075: 75.
    expect(marginOf(rule({ percentHundredths: 750 }), 1001)).toBe(75);
    // 7.5% of 1007 is 75.525: 76.
    expect(marginOf(rule({ percentHundredths: 750 }), 1007)).toBe(76);
    // 0.5 exactly rounds away from zero: 1% of 50 is 0.5 → 1.
    expect(marginOf(rule({ percentHundredths: 100 }), 50)).toBe(1);
    expect(marginOf(rule({ percentHundredths: 100 }), 49)).toBe(0);
    expect(marginOf(rule({ percentHundredths: 1000, fixedMinor: 250 }), 10_000)).toBe(1_250);
  });

  it('is at least the minimum margin', () => {
    expect(marginOf(rule({ percentHundredths: 100, minMarginMinor: 500 }), 10_000)).toBe(500);
    expect(marginOf(rule({ percentHundredths: 100, minMarginMinor: 500 }), 100_000)).toBe(1_000);
    expect(marginOf(rule({ minMarginMinor: 300 }), 0)).toBe(300);
  });

  it('is zero without a rule: sold at net', () => {
    expect(sellPrice(null, 12_345)).toEqual({ netMinor: 12_345, marginMinor: 0, sellMinor: 12_345, ruleId: null, agencyMarginMinor: 0 });
  });

  it('is exact on amounts where a float product would not be', () => {
    // 2^53 - 1 would lose digits once multiplied; the product is computed on bigint.
    const net = 900_719_925_474;
    expect(marginOf(rule({ percentHundredths: 333 }), net)).toBe(Number((BigInt(net) * 333n + 5_000n) / 10_000n));
  });

  it('refuses a sell price beyond what the engine keeps, and a net that is not minor units', () => {
    expect(() => marginOf(rule({ fixedMinor: 1 }), MAX_AMOUNT_MINOR)).toThrow(CurrencyAmountError);
    expect(() => marginOf(rule(), -1)).toThrow(RangeError);
    expect(() => marginOf(rule(), 1.5)).toThrow(RangeError);
  });

  const anyRule = fc.record({
    id: fc.integer({ min: 1, max: 1_000 }),
    service: fc.constantFrom(...MARKUP_SERVICES),
    partnerId: fc.option(fc.integer({ min: 1, max: 5 })),
    supplier: fc.option(fc.constantFrom('simulator', 'duffel')),
    percentHundredths: fc.integer({ min: 0, max: 100_000 }),
    fixedMinor: fc.integer({ min: 0, max: 10_000_000 }),
    minMarginMinor: fc.integer({ min: 0, max: 10_000_000 }),
    validFrom: fc.constant(null),
    validTo: fc.constant(null),
  });
  const anyNet = fc.integer({ min: 0, max: 1_000_000_000_000 });

  it('property: sell = net + margin, sell >= net, and margin >= the minimum and >= fixed', () => {
    fc.assert(
      fc.property(anyRule, anyNet, (r, net) => {
        const p = sellPrice(r, net);
        expect(p.sellMinor).toBe(p.netMinor + p.marginMinor);
        expect(p.sellMinor).toBeGreaterThanOrEqual(net);
        expect(p.marginMinor).toBeGreaterThanOrEqual(r.minMarginMinor);
        expect(p.marginMinor).toBeGreaterThanOrEqual(r.fixedMinor);
        expect(p.ruleId).toBe(r.id);
      }),
    );
  });

  it('property: the percent part is within half a minor unit of the exact percent', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000 }), anyNet, (pct, net) => {
        const margin = marginOf(rule({ percentHundredths: pct }), net);
        const exactTimes10000 = BigInt(net) * BigInt(pct);
        const diff = BigInt(margin) * 10_000n - exactTimes10000;
        expect(diff <= 5_000n && diff > -5_000n).toBe(true);
      }),
    );
  });

  it('property: a higher net never sells lower', () => {
    fc.assert(
      fc.property(anyRule, anyNet, fc.integer({ min: 0, max: 1_000_000 }), (r, net, more) => {
        expect(sellPrice(r, net + more).sellMinor).toBeGreaterThanOrEqual(sellPrice(r, net).sellMinor);
      }),
    );
  });
});

describe('which rule prices a sale', () => {
  it('applies only to its service, partner, supplier and dates', () => {
    expect(applies(rule(), sale)).toBe(true);
    expect(applies(rule({ service: 'flights' }), sale)).toBe(false);
    expect(applies(rule({ partnerId: 8 }), sale)).toBe(false);
    expect(applies(rule({ partnerId: 7 }), sale)).toBe(true);
    expect(applies(rule({ supplier: 'duffel' }), sale)).toBe(false);
    expect(applies(rule({ validFrom: '2026-11-27', validTo: '2026-11-27' }), sale)).toBe(true);
    expect(applies(rule({ validFrom: '2026-11-28' }), sale)).toBe(false);
    expect(applies(rule({ validTo: '2026-11-26' }), sale)).toBe(false);
  });

  it('takes the most specific: partner, then supplier, then the newest', () => {
    const general = rule({ id: 9, percentHundredths: 100 });
    const bySupplier = rule({ id: 3, supplier: 'simulator', percentHundredths: 200 });
    const byPartner = rule({ id: 2, partnerId: 7, percentHundredths: 300 });
    const both = rule({ id: 1, partnerId: 7, supplier: 'simulator', percentHundredths: 400 });
    expect(chooseRule([general], sale)).toBe(general);
    expect(chooseRule([general, bySupplier], sale)).toBe(bySupplier);
    expect(chooseRule([bySupplier, byPartner, general], sale)).toBe(byPartner);
    expect(chooseRule([general, both, byPartner, bySupplier], sale)).toBe(both);
    const newer = rule({ id: 10, percentHundredths: 50 });
    expect(chooseRule([general, newer], sale)).toBe(newer);
    expect(chooseRule([newer, general], sale)).toBe(newer);
    expect(chooseRule([rule({ partnerId: 8 }), rule({ service: 'visa' })], sale)).toBeNull();
    expect(chooseRule([], sale)).toBeNull();
  });

  it('property: the chosen rule applies, and no applying rule is more specific or, as specific, newer', () => {
    const anyRules = fc.array(
      fc.record({
        id: fc.integer({ min: 1, max: 10_000 }),
        service: fc.constantFrom('hotels' as const, 'flights' as const),
        partnerId: fc.option(fc.constantFrom(7, 8)),
        supplier: fc.option(fc.constantFrom('simulator', 'duffel')),
        percentHundredths: fc.integer({ min: 0, max: 1_000 }),
        fixedMinor: fc.constant(0),
        minMarginMinor: fc.constant(0),
        validFrom: fc.option(fc.constantFrom('2026-11-01', '2026-11-27', '2026-12-01')),
        validTo: fc.option(fc.constantFrom('2026-11-26', '2026-11-27', '2026-12-31')),
      }),
      { maxLength: 12 },
    );
    const rank = (r: MarkupRule) => (r.partnerId !== null ? 2 : 0) + (r.supplier !== null ? 1 : 0);
    fc.assert(
      fc.property(anyRules, (rules) => {
        const chosen = chooseRule(rules, sale);
        const applying = rules.filter((r) => applies(r, sale));
        if (chosen === null) return expect(applying).toHaveLength(0);
        expect(applies(chosen, sale)).toBe(true);
        for (const r of applying) {
          expect(rank(r) < rank(chosen) || (rank(r) === rank(chosen) && r.id <= chosen.id)).toBe(true);
        }
      }),
    );
  });
});

describe('filters on sell prices run on nets', () => {
  it('finds the least net selling at a bound or more, and the greatest selling at one or less', () => {
    const m = markupWith(rule({ percentHundredths: 1000, fixedMinor: 500 }));
    // sell(n) = n + round(n / 10) + 500: sell(4545) = 5500, sell(4546) = 5501.
    expect(netAtLeast(m, 5_501)).toBe(4_546);
    expect(netAtMost(m, 5_500)).toBe(4_545);
    expect(netAtMost(m, 499)).toBe(-1);
    expect(netAtLeast(m, 0)).toBe(0);
  });

  it('property: exactly the nets whose sell price is within the bounds pass', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5_000 }),
        fc.integer({ min: 0, max: 2_000 }),
        fc.integer({ min: 0, max: 3_000 }),
        fc.integer({ min: 0, max: 20_000 }),
        fc.integer({ min: 0, max: 20_000 }),
        (pct, fixed, min, bound, net) => {
          const m = markupWith(rule({ percentHundredths: pct, fixedMinor: fixed, minMarginMinor: min }));
          expect(net >= netAtLeast(m, bound)).toBe(m.sell(net) >= bound);
          expect(net <= netAtMost(m, bound)).toBe(m.sell(net) <= bound);
        },
      ),
    );
  });
});

describe('percent as operators write it', () => {
  it.each([
    ['7.5', 750],
    ['7.50', 750],
    ['0', 0],
    ['12', 1200],
    ['0.01', 1],
    [7.5, 750],
    ['1000', 100_000],
  ])('%p is %p hundredths', (input, hundredths) => {
    expect(parsePercent(input)).toBe(hundredths);
  });

  it.each(['-1', '7.555', 'abc', '', '1e3', '1000.01', null, {}])('refuses %p', (input) => {
    expect(() => parsePercent(input)).toThrow(DomainError);
  });

  it('writes it back', () => {
    expect(formatPercent(750)).toBe('7.5');
    expect(formatPercent(1200)).toBe('12');
    expect(formatPercent(1)).toBe('0.01');
    expect(formatPercent(0)).toBe('0');
  });
});

describe("a sub-agency's price", () => {
  const operator = {
    id: 7,
    service: 'hotels' as const,
    partnerId: 1,
    supplier: null,
    percentHundredths: 1000,
    fixedMinor: 500,
    minMarginMinor: 0,
    validFrom: null,
    validTo: null,
  };
  const parent = { parentId: 1, percentHundredths: 500, fixedMinor: 100 };

  it("is the operator's price to the parent plus the parent's markup on it, the parent's share apart", () => {
    // 10,000 net: the operator's price 11,500; 5% of that (575) + 100 is the parent's.
    expect(sellPrice(operator, 10_000, parent)).toEqual({ netMinor: 10_000, marginMinor: 2_175, sellMinor: 12_175, ruleId: 7, agencyMarginMinor: 675 });
    expect(markupWith(operator, parent).operatorSell(10_000)).toBe(11_500);
  });

  it('adds up over lines: the parent keeps what the sell total adds to the operator total', () => {
    const markup = markupWith(operator, parent);
    const lines = [10_000, 333, 7];
    const total = (f: (n: number) => number) => lines.reduce((n, l) => n + f(l), 0);
    const price = summedPrice(markup, { net: total((n) => n), operator: total(markup.operatorSell), sell: total(markup.sell) });
    expect(price.agencyMarginMinor).toBe(total(markup.sell) - total(markup.operatorSell));
    expect(price.marginMinor).toBe(total(markup.sell) - total((n) => n));
  });
});
