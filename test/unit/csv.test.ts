import { toCsv } from '../../src/domain/reports/csv';

/** The CSV files finance opens in a spreadsheet: nothing a person typed runs there as a formula. */
describe('toCsv', () => {
  it('keeps a name or note that looks like a formula as text, and amounts as numbers', () => {
    const csv = toCsv(
      ['by', 'amount', 'note'],
      [
        ['=HYPERLINK("http://evil.example","click")', '-1250.00', '+98 912 000 0000'],
        ['@SUM(A1:A9)', '300.00', '-not a number'],
        ['Sara', '0.50', 'tab\tinside is fine'],
        ['\tleading tab', null, '\rcarriage return first'],
      ],
    );
    expect(csv.split('\r\n')).toEqual([
      'by,amount,note',
      `"'=HYPERLINK(""http://evil.example"",""click"")",-1250.00,'+98 912 000 0000`,
      "'@SUM(A1:A9),300.00,'-not a number",
      'Sara,0.50,tab\tinside is fine',
      `'\tleading tab,,'\rcarriage return first`,
      '',
    ]);
  });
});
