import { parse } from 'csv-parse/sync';
import { Notice } from '../layout';
import { errorOf } from './admin-api';
import { BarChart } from './bar-chart';
import { pageStatusOf, type OperatorPages } from './kit';
import type { OperatorRequest } from './request';

type Row = Record<string, string>;

/** A report the admin API answers as CSV, read into rows by its header. */
async function report(
  r: OperatorRequest,
  name: 'exposure' | 'margins',
  period?: { from: string; to: string },
): Promise<{ rows: Row[] } | { error: string; status: number }> {
  const { data, error, response } = await r.api.GET('/admin/reports/{name}', { params: { path: { name }, query: period ?? {} }, parseAs: 'text' });
  if (data === undefined) return { error: errorOf(error, r.t('error.title')), status: response.status };
  return { rows: parse(data, { columns: true, skip_empty_lines: true }) as Row[] };
}

/** Decimal amounts of one currency added exactly: as integers of their smallest unit. */
function addDecimals(amounts: readonly string[]): string {
  const scale = Math.max(0, ...amounts.map((a) => (a.split('.')[1] ?? '').length));
  const units = (a: string) => {
    const [whole = '0', part = ''] = a.split('.');
    const negative = whole.startsWith('-');
    const n = BigInt(whole.replace('-', '') + part.padEnd(scale, '0'));
    return negative ? -n : n;
  };
  const total = amounts.reduce((sum, a) => sum + units(a), 0n);
  const digits = (total < 0n ? -total : total).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return total < 0n ? `-${text}` : text;
}

const firstOfYear = () => `${new Date().toISOString().slice(0, 4)}-01-01`;
const today = () => new Date().toISOString().slice(0, 10);

async function Reports({ r }: { r: OperatorRequest }) {
  const { t } = r;
  const from = r.c.req.query('from') || firstOfYear();
  const to = r.c.req.query('to') || today();
  const exposure = await report(r, 'exposure');
  const margins = await report(r, 'margins', { from, to });
  const byMonthAndService = new Map<string, { period: string; service: string; currency: string; margins: string[]; sales: number }>();
  if ('rows' in margins) {
    for (const m of margins.rows) {
      const key = `${m.period}|${m.service}|${m.currency}`;
      const entry = byMonthAndService.get(key) ?? { period: m.period!, service: m.service!, currency: m.currency!, margins: [], sales: 0 };
      entry.margins.push(m.margin!);
      entry.sales += Number(m.sales);
      byMonthAndService.set(key, entry);
    }
  }
  const marginRows = [...byMonthAndService.values()].map((e) => ({ ...e, margin: addDecimals(e.margins) }));
  const status = 'error' in margins ? margins.status : 'error' in exposure ? exposure.status : 200;
  return {
    status: status === 200 ? (200 as const) : pageStatusOf(status),
    body: (
      <>
        <section aria-labelledby="exposure-heading">
          <h2 id="exposure-heading">{t('op.reports.exposure')}</h2>
          {'error' in exposure ? (
            <Notice kind="error">{exposure.error}</Notice>
          ) : (
            <>
              <BarChart
                title={t('op.reports.exposure_chart')}
                bars={exposure.rows.map((e) => ({
                  label: e.name!,
                  tag: `(${e.partner_id})`,
                  value: Number(e.credit_used),
                  figure: `${e.credit_used} ${e.currency}`,
                }))}
              />
              <div class="table-wrap">
                <table>
                  <caption>{t('op.reports.exposure_table')}</caption>
                  <thead>
                    <tr>
                      <th scope="col">{t('op.partner')}</th>
                      <th scope="col">{t('dashboard.credit_limit')}</th>
                      <th scope="col">{t('op.reports.credit_used')}</th>
                      <th scope="col">{t('op.reports.share')}</th>
                      <th scope="col">{t('dashboard.available')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {exposure.rows.map((e) => (
                      <tr>
                        <th scope="row">{`${e.name} (${e.partner_id})`}</th>
                        <td class="amount">
                          <bdi>{`${e.credit_limit} ${e.currency}`}</bdi>
                        </td>
                        <td class="amount">
                          <bdi>{`${e.credit_used} ${e.currency}`}</bdi>
                        </td>
                        <td class="amount">
                          <bdi>{e.credit_used_percent ? `${e.credit_used_percent}%` : ''}</bdi>
                        </td>
                        <td class="amount">
                          <bdi>{`${e.available} ${e.currency}`}</bdi>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          )}
        </section>
        <section aria-labelledby="margins-heading">
          <h2 id="margins-heading">{t('op.reports.margins')}</h2>
          <form class="filters" method="get" action="/console/reports">
            <label>
              {t('op.audit.from')}
              <input type="date" name="from" value={from} />
            </label>
            <label>
              {t('op.audit.to')}
              <input type="date" name="to" value={to} />
            </label>
            <button type="submit">{t('op.filter')}</button>
          </form>
          {'error' in margins ? (
            <Notice kind="error">{margins.error}</Notice>
          ) : marginRows.length === 0 ? (
            <p>{t('op.reports.no_margins')}</p>
          ) : (
            <>
              <BarChart
                title={t('op.reports.margins_chart')}
                bars={marginRows.map((m) => ({ label: `${m.period} ${m.service}`, value: Number(m.margin), figure: `${m.margin} ${m.currency}` }))}
              />
              <div class="table-wrap">
                <table>
                  <caption>{t('op.reports.margins_table', { from, to })}</caption>
                  <thead>
                    <tr>
                      <th scope="col">{t('op.reports.month')}</th>
                      <th scope="col">{t('order.service')}</th>
                      <th scope="col">{t('op.reports.sales')}</th>
                      <th scope="col">{t('op.reports.margin')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {marginRows.map((m) => (
                      <tr data-margin={`${m.period} ${m.service}`}>
                        <th scope="row">{m.period}</th>
                        <td>{m.service}</td>
                        <td class="amount">{m.sales}</td>
                        <td class="amount">
                          <bdi>{`${m.margin} ${m.currency}`}</bdi>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          )}
        </section>
      </>
    ),
  };
}

/** `/console/reports`: exposure by partner, margins by month and service; each a chart and its table. */
export const reportPages: OperatorPages = (app, kit) => {
  app.get(
    '/reports',
    kit.signedIn(async (r, viewer) => {
      const { status, body } = await Reports({ r });
      return kit.page(r, r.t('op.reports.title'), body, viewer, status);
    }),
  );
};
