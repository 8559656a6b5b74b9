import { creditShare } from '../../src/domain/reports/exposure';
import { dayText, MAX_STATEMENT_DAYS, rangeText, statementPeriod } from '../../src/domain/money/statements';

describe('statement periods', () => {
  it('bounds whole UTC days, both ends included', () => {
    expect(statementPeriod('2026-12-01', '2026-12-31')).toEqual({
      from: '2026-12-01',
      to: '2026-12-31',
      start: new Date('2026-12-01T00:00:00Z'),
      end: new Date('2027-01-01T00:00:00Z'),
    });
    expect(statementPeriod('2028-02-29', '2028-02-29').end).toEqual(new Date('2028-03-01T00:00:00Z'));
  });

  it.each([
    ['2026-02-29', '2026-03-01', /from: must be a real date/],
    ['2026-12-01', '2026-13-01', /to: must be a real date/],
    ['2026-1-01', '2026-12-01', /from: must be a real date/],
    ['2026-12-02', '2026-12-01', /to: must not be before from/],
    ['2026-01-01', '2027-01-02', /to: the period covers 367 days/],
  ])('refuses %s..%s', (from, to, says) => {
    expect(() => statementPeriod(from, to)).toThrow(says);
  });

  it(`takes up to ${MAX_STATEMENT_DAYS} days`, () => {
    expect(() => statementPeriod('2027-01-01', '2028-01-01')).not.toThrow();
    expect(() => statementPeriod('2027-01-01', '2028-01-02')).toThrow();
  });
});

describe('dates in descriptions', () => {
  it('writes a day and a stay as agents read them', () => {
    expect(dayText('2026-12-10')).toBe('10 Dec 2026');
    expect(rangeText('2026-12-03', '2026-12-05')).toBe('3-5 Dec 2026');
    expect(rangeText('2026-11-30', '2026-12-02')).toBe('30 Nov-2 Dec 2026');
    expect(rangeText('2026-12-30', '2027-01-02')).toBe('30 Dec 2026-2 Jan 2027');
  });
});

describe('credit share', () => {
  it('is the credit used in percent of the limit, two decimals, half up; empty without a limit', () => {
    expect(creditShare(300_000_00, 800_000_00)).toBe('37.50');
    expect(creditShare(1_00, 300_000_00)).toBe('0.00');
    expect(creditShare(1, 200)).toBe('0.50');
    expect(creditShare(2, 3)).toBe('66.67');
    expect(creditShare(1, 3)).toBe('33.33');
    expect(creditShare(0, 100)).toBe('0.00');
    expect(creditShare(100, 100)).toBe('100.00');
    expect(creditShare(0, 0)).toBe('');
    expect(creditShare(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)).toBe('100.00');
  });
});
