import { toDecimal } from 'dinero.js';
import { DomainError } from '../../src/domain/errors';
import { formatDecimal, lineTotal, MAX_AMOUNT_MINOR, money, parseAmount, sum, toNumber } from '../../src/domain/money/money';

describe('money', () => {
  it('renders minor units as two-decimal strings and exact numbers', () => {
    expect(formatDecimal(125000000, 'IRT')).toBe('1250000.00');
    expect(formatDecimal(-5000, 'IRT')).toBe('-50.00');
    expect(formatDecimal(7, 'IRT')).toBe('0.07');
    expect(toNumber(260000000, 'IRT')).toBe(2600000);
    expect(toNumber(1999, 'IRT')).toBe(19.99);
  });

  it("renders every amount as dinero.js's toDecimal does", () => {
    const edges = [0, 1, -1, 9, 10, 99, 100, 101, -99, -100, -101, 1999, MAX_AMOUNT_MINOR, -MAX_AMOUNT_MINOR, MAX_AMOUNT_MINOR - 1, Number.MAX_SAFE_INTEGER];
    let seed = 1;
    const next = () => (seed = (seed * 48271) % 2147483647);
    const random = Array.from({ length: 5000 }, () => (next() % 2 ? -1 : 1) * Math.floor((next() / 2147483647) * 10 ** (next() % 16)));
    for (const amount of [...edges, ...random]) expect(formatDecimal(amount, 'IRT')).toBe(toDecimal(money(amount, 'IRT')));
    expect(() => formatDecimal(0.5, 'IRT')).toThrow(RangeError);
  });

  it('multiplies and adds without floating-point drift', () => {
    expect(lineTotal(10, 3, 'IRT')).toBe(30); // 0.10 × 3 = 0.30 exactly
    expect(sum([10, 20], 'IRT')).toBe(30); // 0.1 + 0.2 = 0.3, not 0.30000000000000004
    expect(sum([], 'IRT')).toBe(0);
  });

  it.each([
    ['500000', 50000000],
    ['500000.00', 50000000],
    ['0.5', 50],
    ['12.34', 1234],
    [' 7 ', 700],
    [250, 25000],
  ])('parses %p as %p minor units', (input, minor) => {
    expect(parseAmount('amount', input)).toBe(minor);
  });

  it.each([['-5'], ['abc'], ['1.234'], [''], ['1e5'], ['01'], [null], [undefined], [{}], [Number.NaN], ['1000000000000000000']])(
    'refuses %p with a message naming the field',
    (input) => {
      expect(() => parseAmount('amount', input)).toThrow(DomainError);
      expect(() => parseAmount('amount', input)).toThrow(/^amount: /);
    },
  );

  it('refuses zero unless allowed', () => {
    expect(() => parseAmount('amount', '0')).toThrow(/greater than zero/);
    expect(parseAmount('credit_limit', '0', { allowZero: true })).toBe(0);
  });
});
