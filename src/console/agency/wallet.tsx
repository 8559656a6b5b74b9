import type { Viewer } from '../layout';
import { Notice } from '../layout';
import { Amount, outcomeOf, pageStatus, passOn, withRight } from './account-kit';
import type { AgencyPages } from './kit';
import type { ConsoleRequest } from './request';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const MONTH = /^\d{4}-\d{2}$/;

/** The period a page asks for: `from` and `to` as given, else the current month to today (UTC). */
function periodOf(r: ConsoleRequest): { from: string; to: string } {
  const today = new Date().toISOString().slice(0, 10);
  const from = r.c.req.query('from') ?? '';
  const to = r.c.req.query('to') ?? '';
  return { from: DAY.test(from) ? from : `${today.slice(0, 8)}01`, to: DAY.test(to) ? to : today };
}

const monthOf = (r: ConsoleRequest) => {
  const asked = r.c.req.query('month') ?? '';
  return MONTH.test(asked) ? asked : new Date().toISOString().slice(0, 7);
};

/** Balance, credit, and the statement of a period: its opening and closing balances and every movement, downloadable as CSV or PDF. */
async function Wallet({ r }: { r: ConsoleRequest; viewer: Viewer }) {
  const { t } = r;
  const period = periodOf(r);
  const wallet = (await r.api.GET('/partners/wallet/')).data?.data;
  const res = await r.api.GET('/partners/statements/', { params: { query: { ...period } } });
  const statement = (res.data as { data?: unknown } | undefined)?.data as
    | {
        currency: string;
        opening_balance: string;
        closing_balance: string;
        total_debits: string;
        total_credits: string;
        movements: Array<{
          date: string;
          entry_id: number;
          type: string;
          direction: string;
          amount: string;
          balance_after: string;
          order_id: number | null;
          description: string;
        }>;
      }
    | undefined;
  const refused = statement ? undefined : outcomeOf(res);
  const query = new URLSearchParams(period).toString();
  return {
    status: refused ? pageStatus(refused.status) : 200,
    body: (
      <>
        {wallet && (
          <section aria-labelledby="balance-heading">
            <h2 id="balance-heading">{t('wallet.now')}</h2>
            <dl class="figures">
              <div>
                <dt>{t('dashboard.balance')}</dt>
                <dd class="amount" data-figure="balance">
                  <Amount value={wallet.balance} currency={wallet.currency} />
                </dd>
              </div>
              <div>
                <dt>{t('dashboard.credit_limit')}</dt>
                <dd class="amount" data-figure="credit">
                  <Amount value={wallet.credit_limit} currency={wallet.currency} />
                </dd>
              </div>
              <div>
                <dt>{t('dashboard.available')}</dt>
                <dd class="amount" data-figure="available">
                  <Amount value={wallet.available} currency={wallet.currency} />
                </dd>
              </div>
            </dl>
          </section>
        )}
        <section aria-labelledby="statement-heading">
          <h2 id="statement-heading">{t('wallet.statement')}</h2>
          <form class="inline" method="get" action="/console/wallet">
            <label>
              {t('wallet.from')}
              <input type="date" name="from" value={period.from} required />
            </label>
            <label>
              {t('wallet.to')}
              <input type="date" name="to" value={period.to} required />
            </label>
            <button type="submit">{t('wallet.show')}</button>
          </form>
          {refused && <Notice kind="error">{refused.error}</Notice>}
          {statement && (
            <>
              <p class="downloads">
                <a class="button secondary" href={`/console/wallet/statement.csv?${query}`} download>
                  {t('wallet.download_csv')}
                </a>{' '}
                <a class="button secondary" href={`/console/wallet/statement.pdf?${query}`} download>
                  {t('wallet.download_pdf')}
                </a>
              </p>
              <dl class="figures">
                <div>
                  <dt>{t('wallet.opening')}</dt>
                  <dd class="amount">
                    <Amount value={statement.opening_balance} currency={statement.currency} />
                  </dd>
                </div>
                <div>
                  <dt>{t('wallet.debits')}</dt>
                  <dd class="amount">
                    <Amount value={statement.total_debits} currency={statement.currency} />
                  </dd>
                </div>
                <div>
                  <dt>{t('wallet.credits')}</dt>
                  <dd class="amount">
                    <Amount value={statement.total_credits} currency={statement.currency} />
                  </dd>
                </div>
                <div>
                  <dt>{t('wallet.closing')}</dt>
                  <dd class="amount">
                    <Amount value={statement.closing_balance} currency={statement.currency} />
                  </dd>
                </div>
              </dl>
              <h3>{t('wallet.ledger')}</h3>
              {statement.movements.length === 0 ? (
                <p>{t('wallet.no_movements')}</p>
              ) : (
                <div class="table-wrap">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">{t('wallet.date')}</th>
                        <th scope="col">{t('wallet.entry')}</th>
                        <th scope="col">{t('wallet.description')}</th>
                        <th scope="col">{t('order.id')}</th>
                        <th scope="col">{t('wallet.debit')}</th>
                        <th scope="col">{t('wallet.credit')}</th>
                        <th scope="col">{t('wallet.balance_after')}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {statement.movements.map((m) => (
                        <tr>
                          <td>
                            <time datetime={m.date}>{m.date}</time>
                          </td>
                          <td>{m.entry_id}</td>
                          <td>{m.description}</td>
                          <td>{m.order_id ?? ''}</td>
                          <td class="amount">{m.direction === 'debit' && <Amount value={m.amount} currency={statement.currency} />}</td>
                          <td class="amount">{m.direction === 'credit' && <Amount value={m.amount} currency={statement.currency} />}</td>
                          <td class="amount">
                            <Amount value={m.balance_after} currency={statement.currency} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </>
          )}
        </section>
      </>
    ),
  };
}

interface FinanceDocumentView {
  number: string;
  kind: string;
  order_id: number;
  date: string;
  total: string;
  tax: string;
  currency: string;
}

/** The month's invoices and credit notes with their totals, each linked to its PDF, and the month's summary as a PDF. */
async function Invoices({ r }: { r: ConsoleRequest }) {
  const { t } = r;
  const month = monthOf(r);
  const res = await r.api.GET('/partners/invoices/', { params: { query: { month } } });
  const summary = (res.data as { data?: unknown } | undefined)?.data as
    { documents: FinanceDocumentView[]; totals: Array<{ currency: string; invoiced: string; credited: string; net: string; tax: string }> } | undefined;
  const refused = summary ? undefined : outcomeOf(res);
  // Each document's file, as its order's documents name it.
  const files = new Map<string, string>();
  for (const orderId of new Set(summary?.documents.map((d) => d.order_id) ?? [])) {
    const listed = (await r.api.GET('/partners/orders/{id}/documents/', { params: { path: { id: String(orderId) } } })).data?.data.documents ?? [];
    for (const d of listed) if (d.number) files.set(d.number, d.url.slice(d.url.lastIndexOf('/') + 1));
  }
  return {
    status: refused ? pageStatus(refused.status) : 200,
    body: (
      <>
        <form class="inline" method="get" action="/console/invoices">
          <label>
            {t('invoices.month')}
            <input type="month" name="month" value={month} required pattern="\d{4}-\d{2}" />
          </label>
          <button type="submit">{t('wallet.show')}</button>
        </form>
        {refused && <Notice kind="error">{refused.error}</Notice>}
        {summary && (
          <>
            <p class="downloads">
              <a class="button secondary" href={`/console/invoices/summary.pdf?month=${month}`} download>
                {t('invoices.summary_pdf')}
              </a>
            </p>
            <h2>{t('invoices.totals')}</h2>
            {summary.totals.length === 0 ? (
              <p>{t('invoices.none')}</p>
            ) : (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">{t('invoices.currency')}</th>
                      <th scope="col">{t('invoices.invoiced')}</th>
                      <th scope="col">{t('invoices.credited')}</th>
                      <th scope="col">{t('invoices.net')}</th>
                      <th scope="col">{t('invoices.tax')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {summary.totals.map((x) => (
                      <tr>
                        <th scope="row">{x.currency}</th>
                        <td class="amount">
                          <Amount value={x.invoiced} currency={x.currency} />
                        </td>
                        <td class="amount">
                          <Amount value={x.credited} currency={x.currency} />
                        </td>
                        <td class="amount">
                          <Amount value={x.net} currency={x.currency} />
                        </td>
                        <td class="amount">
                          <Amount value={x.tax} currency={x.currency} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            {summary.documents.length > 0 && (
              <>
                <h2>{t('invoices.documents')}</h2>
                <div class="table-wrap">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">{t('invoices.number')}</th>
                        <th scope="col">{t('invoices.kind')}</th>
                        <th scope="col">{t('order.id')}</th>
                        <th scope="col">{t('wallet.date')}</th>
                        <th scope="col">{t('invoices.total')}</th>
                        <th scope="col">{t('invoices.tax')}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {summary.documents.map((d) => {
                        const file = files.get(d.number);
                        return (
                          <tr>
                            <th scope="row">
                              {file ? (
                                <a href={`/console/invoices/${d.order_id}/${file}`} download>
                                  {`${d.number} (PDF)`}
                                </a>
                              ) : (
                                d.number
                              )}
                            </th>
                            <td>{d.kind === 'invoice' ? t('invoices.invoice') : t('invoices.credit_note')}</td>
                            <td>{d.order_id}</td>
                            <td>
                              <time datetime={d.date}>{d.date}</time>
                            </td>
                            <td class="amount">
                              <Amount value={d.total} currency={d.currency} />
                            </td>
                            <td class="amount">
                              <Amount value={d.tax} currency={d.currency} />
                            </td>
                          </tr>
                        );
                      })}
                    </tbody>
                  </table>
                </div>
              </>
            )}
          </>
        )}
      </>
    ),
  };
}

/** `/console/wallet` (balance, credit, statement and its downloads) and `/console/invoices` (the month's documents): finance's. */
export const walletPages: AgencyPages = (app, kit) => {
  const walletTitle = (r: ConsoleRequest) => r.t('nav.wallet');
  const invoicesTitle = (r: ConsoleRequest) => r.t('nav.invoices');

  app.get(
    '/wallet',
    withRight(kit, 'finance', walletTitle, async (r, viewer) => {
      const { status, body } = await Wallet({ r, viewer });
      return kit.page(r, walletTitle(r), body, viewer, status);
    }),
  );
  for (const format of ['csv', 'pdf'] as const)
    app.get(
      `/wallet/statement.${format}`,
      withRight(kit, 'finance', walletTitle, async (r, viewer) =>
        passOn(kit, r, viewer, walletTitle(r), await r.api.GET('/partners/statements/', { params: { query: { ...periodOf(r), format } }, parseAs: 'stream' })),
      ),
    );

  app.get(
    '/invoices',
    withRight(kit, 'finance', invoicesTitle, async (r, viewer) => {
      const { status, body } = await Invoices({ r });
      return kit.page(r, invoicesTitle(r), body, viewer, status);
    }),
  );
  app.get(
    '/invoices/summary.pdf',
    withRight(kit, 'finance', invoicesTitle, async (r, viewer) =>
      passOn(
        kit,
        r,
        viewer,
        invoicesTitle(r),
        await r.api.GET('/partners/invoices/', { params: { query: { month: monthOf(r), format: 'pdf' } }, parseAs: 'stream' }),
      ),
    ),
  );
  app.get(
    '/invoices/:order{[0-9]+}/:file{(invoice|credit-note)(-[0-9]+)?\\.pdf}',
    withRight(kit, 'finance', invoicesTitle, async (r, viewer) =>
      passOn(
        kit,
        r,
        viewer,
        invoicesTitle(r),
        await r.api.GET('/partners/orders/{id}/documents/{file}', {
          params: { path: { id: r.c.req.param('order') ?? '', file: r.c.req.param('file') ?? '' } },
          parseAs: 'stream',
        }),
      ),
    ),
  );
};
