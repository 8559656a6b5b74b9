import type { Translate } from '../i18n';

/** The column heads of a table of orders: the dashboard's recent bookings and the bookings list show the same columns. */
export const OrderColumns = ({ t }: { t: Translate }) => (
  <thead>
    <tr>
      <th scope="col">{t('order.id')}</th>
      <th scope="col">{t('order.service')}</th>
      <th scope="col">{t('order.status')}</th>
      <th scope="col">{t('order.amount')}</th>
      <th scope="col">{t('order.by')}</th>
      <th scope="col">{t('order.created')}</th>
    </tr>
  </thead>
);

/** The last two cells of an order's row: who made it and on which day. */
export const OrderByAndDate = ({ order }: { order: { created_by?: unknown; created_at: string } }) => (
  <>
    <td>{(order.created_by as { name?: string } | null)?.name ?? ''}</td>
    <td>
      <time datetime={order.created_at}>{order.created_at.slice(0, 10)}</time>
    </td>
  </>
);
