import type { Viewer } from '../layout';
import type { AgencyPages } from './kit';
import type { ConsoleRequest } from './request';
import { OrderByAndDate, OrderColumns } from './order-columns';

/** Balance, available credit and its alert (finance), and the latest bookings (view). */
export async function Dashboard({ r, viewer }: { r: ConsoleRequest; viewer: Viewer }) {
  const { t } = r;
  const wallet = viewer.rights.has('finance') ? (await r.api.GET('/partners/wallet/')).data?.data : undefined;
  const orders = viewer.rights.has('view') ? (await r.api.GET('/partners/orders/')).data?.data.results.slice(0, 10) : undefined;
  const alert = wallet && (wallet as { credit_alert?: { level?: string } | null }).credit_alert?.level;
  return (
    <>
      {wallet && (
        <section aria-labelledby="wallet-heading">
          <h2 id="wallet-heading">{t('nav.wallet')}</h2>
          {alert && <p class="notice error">{t('dashboard.alert', { level: alert })}</p>}
          <dl class="figures">
            <div>
              <dt>{t('dashboard.balance')}</dt>
              <dd class="amount" data-figure="balance">{`${wallet.balance} ${wallet.currency}`}</dd>
            </div>
            <div>
              <dt>{t('dashboard.available')}</dt>
              <dd class="amount" data-figure="available">{`${wallet.available} ${wallet.currency}`}</dd>
            </div>
            <div>
              <dt>{t('dashboard.credit_limit')}</dt>
              <dd class="amount">{`${wallet.credit_limit} ${wallet.currency}`}</dd>
            </div>
          </dl>
        </section>
      )}
      {orders && (
        <section aria-labelledby="recent-heading">
          <h2 id="recent-heading">{t('dashboard.recent')}</h2>
          {orders.length === 0 ? (
            <p>{t('dashboard.no_bookings')}</p>
          ) : (
            <div class="table-wrap">
              <table>
                <OrderColumns t={t} />
                <tbody>
                  {orders.map((o) => (
                    <tr>
                      <td>{o.id}</td>
                      <td>{o.service}</td>
                      <td>{o.status}</td>
                      <td class="amount">{`${o.total_price} ${o.currency}`}</td>
                      <OrderByAndDate order={o} />
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}
    </>
  );
}

/** `/console/`: the dashboard. */
export const dashboardPages: AgencyPages = (app, kit) => {
  app.get(
    '/',
    kit.signedIn(async (r, viewer) => kit.page(r, r.t('dashboard.title'), await Dashboard({ r, viewer }), viewer)),
  );
};
