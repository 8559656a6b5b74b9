import { dinero, toDecimal } from 'dinero.js';
import { CurrencyAmountError, exponentOf, formatMinor, isKnownCurrency, parseSupplierAmount } from '../../src/platform/currency';
import { DomainError } from '../../src/domain/errors';
import { convert, formatRate, MAX_RATE_SCALE, parseRate, type ExactRate } from '../../src/domain/money/fx';
import { formatDecimal, MAX_AMOUNT_MINOR, parseAmount } from '../../src/domain/money/money';
import { loadConfig } from '../../src/config';

describe('currencies', () => {
  it.each([
    ['GBP', 2],
    ['USD', 2],
    ['EUR', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['KWD', 3],
    ['BHD', 3],
    ['IRR', 2],
    ['IRT', 2],
  ])('%s has %p minor digits', (code, exponent) => {
    expect(exponentOf(code)).toBe(exponent);
    expect(isKnownCurrency(code)).toBe(true);
  });

  it('knows no currency outside ISO 4217 but IRT', () => {
    for (const code of ['XYZ', 'gbp', '', 'GBPX', 'toString', 'convert']) {
      expect(isKnownCurrency(code)).toBe(false);
      expect(() => exponentOf(code)).toThrow(CurrencyAmountError);
    }
  });
});

describe("a supplier's amounts", () => {
  it.each([
    ['123.45', 'GBP', 12345],
    ['123.4', 'GBP', 12340],
    ['123', 'GBP', 12300],
    ['0.01', 'GBP', 1],
    ['0', 'GBP', 0],
    ['123.450', 'GBP', 12345],
    ['1500', 'JPY', 1500],
    ['1500.00', 'JPY', 1500],
    ['1.234', 'KWD', 1234],
    ['0.005', 'KWD', 5],
    ['12.5', 'KWD', 12500],
    ['52000.00', 'IRT', 5200000],
    ['-10.50', 'GBP', -1050],
    ['10000000000000.00', 'GBP', MAX_AMOUNT_MINOR],
  ])('parses %p %s as %p minor units', (amount, currency, minor) => {
    expect(parseSupplierAmount(amount, currency)).toBe(minor);
  });

  it.each([
    ['123.456', 'GBP', 'too_precise'],
    ['1500.5', 'JPY', 'too_precise'],
    ['1.2345', 'KWD', 'too_precise'],
    ['123.45', 'XYZ', 'unknown_currency'],
    ['123.45', 'gbp', 'unknown_currency'],
    ['', 'GBP', 'not_an_amount'],
    ['abc', 'GBP', 'not_an_amount'],
    ['1e5', 'GBP', 'not_an_amount'],
    ['01.00', 'GBP', 'not_an_amount'],
    [' 1.00', 'GBP', 'not_an_amount'],
    ['1.', 'GBP', 'not_an_amount'],
    ['.5', 'GBP', 'not_an_amount'],
    ['1,000.00', 'GBP', 'not_an_amount'],
    ['10000000000000.01', 'GBP', 'too_large'],
    ['99999999999999999999', 'JPY', 'too_large'],
  ])('refuses %p %s (%s)', (amount, currency, problem) => {
    let caught: unknown;
    try {
      parseSupplierAmount(amount, currency);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CurrencyAmountError);
    expect(caught).toMatchObject({ problem });
  });

  it.each([
    [12345, 'GBP', '123.45'],
    [5, 'GBP', '0.05'],
    [0, 'GBP', '0.00'],
    [-1050, 'GBP', '-10.50'],
    [1500, 'JPY', '1500'],
    [0, 'JPY', '0'],
    [1234, 'KWD', '1.234'],
    [5, 'KWD', '0.005'],
    [5200000, 'IRT', '52000.00'],
  ])('formats %p minor units of %s as %p', (minor, currency, text) => {
    expect(formatMinor(minor, currency)).toBe(text);
  });

  it('formats and parses back every amount exactly, as dinero.js renders it', () => {
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (const currency of ['GBP', 'JPY', 'KWD', 'IRT']) {
      const exponent = exponentOf(currency);
      for (let i = 0; i < 2000; i += 1) {
        const minor = Math.floor((next() / 2147483647) * 10 ** (next() % 16));
        const text = formatMinor(minor, currency);
        expect(parseSupplierAmount(text, currency)).toBe(minor);
        expect(text).toBe(toDecimal(dinero({ amount: minor, currency: { code: currency, base: 10, exponent } })));
      }
    }
    expect(() => formatMinor(0.5, 'GBP')).toThrow(RangeError);
    expect(() => formatMinor(1, 'XYZ')).toThrow(CurrencyAmountError);
  });

  it("leaves the wallet's own helpers as they were: two decimals", () => {
    expect(formatDecimal(12345, 'IRT')).toBe('123.45');
    expect(parseAmount('amount', '52000')).toBe(5200000);
    expect(() => parseAmount('amount', '1.234')).toThrow(DomainError);
  });
});

describe('exchange rates as exact decimals', () => {
  it.each([
    ['52000', { amount: 52000, scale: 0 }],
    [52000, { amount: 52000, scale: 0 }],
    ['52000.00', { amount: 52000, scale: 0 }],
    ['52000.5', { amount: 520005, scale: 1 }],
    ['0.0125', { amount: 125, scale: 4 }],
    [0.0125, { amount: 125, scale: 4 }],
    ['0.000000000001', { amount: 1, scale: 12 }],
    ['123456789.012345', { amount: 123456789012345, scale: 6 }],
    [' 350.125 ', { amount: 350125, scale: 3 }],
  ])('reads %p as %p', (input, rate) => {
    expect(parseRate('rate', input)).toEqual(rate);
    expect(parseRate('rate', formatRate(rate))).toEqual(rate);
  });

  it.each([
    ['0', 'greater than zero'],
    ['0.000', 'greater than zero'],
    [0, 'greater than zero'],
    ['-1', 'positive decimal'],
    [-52000, 'positive decimal'],
    ['abc', 'positive decimal'],
    ['1e5', 'positive decimal'],
    [1e-7, 'positive decimal'],
    ['', 'positive decimal'],
    [null, 'positive decimal'],
    [Number.NaN, 'positive decimal'],
    [Number.POSITIVE_INFINITY, 'positive decimal'],
    ['0.0000000000001', `at most ${MAX_RATE_SCALE} decimals`],
    ['1234567890.1234567', 'at most 15 significant digits'],
    ['1000000000000000', 'at most 15 significant digits'],
  ])('refuses %p (%s)', (input, message) => {
    expect(() => parseRate('rate', input)).toThrow(DomainError);
    expect(() => parseRate('rate', input)).toThrow(message);
  });

  it('writes a rate back as operators type it', () => {
    expect(formatRate({ amount: 52000, scale: 0 })).toBe('52000');
    expect(formatRate({ amount: 520005, scale: 1 })).toBe('52000.5');
    expect(formatRate({ amount: 125, scale: 4 })).toBe('0.0125');
  });
});

const rate = (text: string): ExactRate => parseRate('rate', text);

/**
 * The rounding rule written out with BigInt, independently of dinero.js: the exact value in
 * minor units of `to`, rounded once, half away from zero.
 */
function oracle(amountMinor: number, from: string, to: string, r: ExactRate): bigint {
  const numerator = BigInt(amountMinor) * BigInt(r.amount) * 10n ** BigInt(exponentOf(to));
  const denominator = 10n ** BigInt(exponentOf(from) + r.scale);
  const q = numerator / denominator;
  const rest = numerator % denominator;
  const abs = rest < 0n ? -rest : rest;
  if (2n * abs >= denominator) return q + (numerator < 0n ? -1n : 1n);
  return q;
}

describe('conversion into the wallet currency', () => {
  it.each([
    // 123.45 GBP × 52,000 = 6,419,400.00 IRT
    [12345, 'GBP', 'IRT', '52000', 641940000],
    // 1,500 JPY × 350.125 = 525,187.50 IRT
    [1500, 'JPY', 'IRT', '350.125', 52518750],
    // 1.234 KWD × 170,000 = 209,780.00 IRT
    [1234, 'KWD', 'IRT', '170000', 20978000],
    // 0.005 KWD × 1.5 = 0.0075 IRT → 0.01 (half away from zero)
    [5, 'KWD', 'IRT', '1.5', 1],
    // 1 JPY × 0.333333333333 = 0.333333333333 IRT → 0.33
    [1, 'JPY', 'IRT', '0.333333333333', 33],
    // 10.00 GBP × 0.123456789012 = 1.23456789012 IRT → 1.23
    [1000, 'GBP', 'IRT', '0.123456789012', 123],
    // 0.01 GBP × 0.5 = 0.005 IRT, exactly half a minor unit → 0.01
    [1, 'GBP', 'IRT', '0.5', 1],
    // 0.03 GBP × 0.5 = 0.015 IRT → 0.02 (half away from zero, not to even)
    [3, 'GBP', 'IRT', '0.5', 2],
    // 0.05 GBP × 0.5 = 0.025 IRT → 0.03 (not to even either)
    [5, 'GBP', 'IRT', '0.5', 3],
    // 0.01 GBP × 0.49 = 0.0049 IRT → 0.00
    [1, 'GBP', 'IRT', '0.49', 0],
    // 1 JPY × 0.005 = 0.005 IRT → 0.01
    [1, 'JPY', 'IRT', '0.005', 1],
    // 1 JPY × 0.00499 = 0.00499 IRT → 0.00
    [1, 'JPY', 'IRT', '0.00499', 0],
    // a refund: -0.03 GBP × 0.5 = -0.015 IRT → -0.02 (away from zero)
    [-3, 'GBP', 'IRT', '0.5', -2],
    // into a currency of no minor digits: 1.25 GBP → 1 JPY, 1.50 GBP → 2 JPY
    [125, 'GBP', 'JPY', '1', 1],
    [150, 'GBP', 'JPY', '1', 2],
    // into a currency of three: 1.00 GBP × 0.3333 = 0.3333 KWD → 0.333; × 0.3335 → 0.334
    [100, 'GBP', 'KWD', '0.3333', 333],
    [100, 'GBP', 'KWD', '0.3335', 334],
  ])('%p minor units of %s into %s at %s → %p', (amountMinor, from, to, r, expected) => {
    expect(convert({ amountMinor, from, to, rate: rate(r) })).toBe(expected);
    expect(BigInt(expected)).toBe(oracle(amountMinor, from, to, rate(r)));
  });

  it('agrees with the written rule on thousands of amounts and rates', () => {
    let seed = 11;
    const next = () => (seed = (seed * 48271) % 2147483647);
    const pairs: [string, string][] = [
      ['GBP', 'IRT'],
      ['JPY', 'IRT'],
      ['KWD', 'IRT'],
      ['IRT', 'GBP'],
      ['GBP', 'JPY'],
      ['JPY', 'KWD'],
    ];
    let checked = 0;
    for (const [from, to] of pairs) {
      for (let i = 0; i < 1500; i += 1) {
        const amountMinor = (next() % 5 === 0 ? -1 : 1) * Math.floor((next() / 2147483647) * 10 ** (next() % 12));
        const r = { amount: 1 + (next() % 10 ** (1 + (next() % 9))), scale: next() % (MAX_RATE_SCALE + 1) };
        const expected = oracle(amountMinor, from, to, r);
        if (expected > BigInt(MAX_AMOUNT_MINOR) || expected < -BigInt(MAX_AMOUNT_MINOR)) {
          expect(() => convert({ amountMinor, from, to, rate: r })).toThrow(CurrencyAmountError);
        } else {
          expect(BigInt(convert({ amountMinor, from, to, rate: r }))).toBe(expected);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(5000);
  });

  it('keeps huge amounts exact past 2^53 in between, and refuses a result the engine cannot store', () => {
    // 10,000,000,000.00 GBP × 0.000000000001 = 0.01 IRT: the product 10^12 × 10^0 scaled by 10^-14 is exact.
    expect(convert({ amountMinor: 10 ** 12, from: 'GBP', to: 'IRT', rate: rate('0.000000000001') })).toBe(1);
    // 90,071,992,547.40 GBP × 1.00000001: the intermediate product passes 2^53, the result is exact.
    expect(convert({ amountMinor: 9007199254740, from: 'GBP', to: 'IRT', rate: rate('1.00000001') })).toBe(9007199344812);
    // 10,000,000,000,000.00 IRT is the most the engine keeps; one minor unit more is refused.
    expect(convert({ amountMinor: MAX_AMOUNT_MINOR / 100, from: 'JPY', to: 'IRT', rate: rate('1') })).toBe(MAX_AMOUNT_MINOR);
    expect(() => convert({ amountMinor: MAX_AMOUNT_MINOR, from: 'GBP', to: 'IRT', rate: rate('52000') })).toThrow(CurrencyAmountError);
    expect(() => convert({ amountMinor: MAX_AMOUNT_MINOR / 100 + 1, from: 'JPY', to: 'IRT', rate: rate('1') })).toThrow(/more IRT than the engine keeps/);
  });

  it('converts the same currency to itself without a rate, and refuses what it cannot convert', () => {
    expect(convert({ amountMinor: 12345, from: 'IRT', to: 'IRT', rate: { amount: 1, scale: 0 } })).toBe(12345);
    expect(() => convert({ amountMinor: 12345, from: 'IRT', to: 'IRT', rate: rate('2') })).toThrow(RangeError);
    expect(() => convert({ amountMinor: 1, from: 'XYZ', to: 'IRT', rate: rate('2') })).toThrow(CurrencyAmountError);
    expect(() => convert({ amountMinor: 0.5, from: 'GBP', to: 'IRT', rate: rate('2') })).toThrow(RangeError);
    expect(() => convert({ amountMinor: 1, from: 'GBP', to: 'IRT', rate: { amount: 0, scale: 0 } })).toThrow(RangeError);
    expect(() => convert({ amountMinor: 1, from: 'GBP', to: 'IRT', rate: { amount: 1, scale: 13 } })).toThrow(RangeError);
  });
});

describe('the wallet currency setting', () => {
  it('takes IRT and ISO 4217 currencies of two minor digits', () => {
    expect(loadConfig({}).CURRENCY).toBe('IRT');
    expect(loadConfig({ CURRENCY: 'EUR' }).CURRENCY).toBe('EUR');
    expect(loadConfig({}).FX_RATE_MAX_AGE_HOURS).toBe(24);
  });

  it('refuses a currency the wallet cannot keep in two decimals', () => {
    expect(() => loadConfig({ CURRENCY: 'JPY' })).toThrow(/CURRENCY: a currency of 2 minor digits/);
    expect(() => loadConfig({ CURRENCY: 'XYZ' })).toThrow(/CURRENCY/);
    expect(() => loadConfig({ FX_RATE_MAX_AGE_HOURS: '0' })).toThrow(/FX_RATE_MAX_AGE_HOURS/);
  });
});
