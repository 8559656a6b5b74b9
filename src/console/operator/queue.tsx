import { Notice } from '../layout';
import { errorOf } from './admin-api';
import { field, pageStatusOf, type OperatorKit, type OperatorPages } from './kit';
import type { OperatorRequest } from './request';

const ACTIONS = ['retry', 'confirm', 'compensate'] as const;
type Action = (typeof ACTIONS)[number];

/**
 * The workflow in Temporal Web, when the console knows where that is: its list filtered by
 * the workflow id (the form docs/operations.md uses), which shows every run of it, the parked
 * one first.
 */
const workflowLink = (kit: OperatorKit, workflowId: string) =>
  kit.deps.temporalWeb &&
  `${kit.deps.temporalWeb.origin}/namespaces/${encodeURIComponent(kit.deps.temporalWeb.namespace)}/workflows?query=${encodeURIComponent(`WorkflowId="${workflowId}"`)}`;

function WorkflowLink({ kit, r, id }: { kit: OperatorKit; r: OperatorRequest; id: string }) {
  const href = workflowLink(kit, id);
  return href ? (
    <a href={href} rel="noopener" target="_blank" data-temporal-web>
      {r.t('op.queue.in_temporal', { id })}
    </a>
  ) : (
    <code>{id}</code>
  );
}

/** The needs-attention queue: every parked payment and cancellation, each with a link to decide it. */
async function Queue({ r, kit }: { r: OperatorRequest; kit: OperatorKit }) {
  const { t } = r;
  const { data: parked, error } = await r.api.GET('/admin/needs-attention');
  if (!parked) return <Notice kind="error">{errorOf(error, t('error.title'))}</Notice>;
  const decided = r.c.req.query('decided');
  const order = r.c.req.query('order');
  return (
    <>
      {decided && order && <Notice kind="info">{t('op.queue.decided', { order, action: t(`op.action.${decided as Action}`) })}</Notice>}
      {parked.results.length === 0 ? (
        <p>{t('op.queue.empty')}</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption>{t('op.queue.caption', { count: parked.results.length })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('order.id')}</th>
                <th scope="col">{t('op.queue.kind')}</th>
                <th scope="col">{t('order.service')}</th>
                <th scope="col">{t('op.partner')}</th>
                <th scope="col">{t('op.queue.step')}</th>
                <th scope="col">{t('op.queue.since')}</th>
                <th scope="col">{t('op.queue.workflow')}</th>
              </tr>
            </thead>
            <tbody>
              {parked.results.map((p) => (
                <tr>
                  <th scope="row">{p.order_id === null ? '' : <a href={`/console/queue/${p.order_id}`}>{t('op.queue.decide', { order: p.order_id })}</a>}</th>
                  <td>{p.kind}</td>
                  <td>{p.service ?? ''}</td>
                  <td>{p.partner_id ?? ''}</td>
                  <td>{p.state?.step ?? ''}</td>
                  <td>
                    <time datetime={p.started_at}>{p.started_at.slice(0, 16).replace('T', ' ')}</time>
                  </td>
                  <td>
                    <WorkflowLink kit={kit} r={r} id={p.workflow_id} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** One parked order: what is known of it, and the decision with its reason. */
async function Decide({ r, kit, orderId, error, csrf }: { r: OperatorRequest; kit: OperatorKit; orderId: number; error?: string; csrf: string }) {
  const { t } = r;
  const { data: inspected, error: refused } = await r.api.GET('/admin/orders/{id}', { params: { path: { id: String(orderId) } } });
  if (!inspected) return <Notice kind="error">{error ?? errorOf(refused, t('error.title'))}</Notice>;
  const { order } = inspected;
  const run = inspected.payment?.state?.step === 'needs_attention' ? inspected.payment : (inspected.cancellation ?? inspected.payment);
  return (
    <>
      {error && <Notice kind="error">{error}</Notice>}
      <dl class="figures">
        <div>
          <dt>{t('order.status')}</dt>
          <dd>{order.status}</dd>
        </div>
        <div>
          <dt>{t('order.amount')}</dt>
          <dd class="amount">
            <bdi>{`${order.total_price} ${order.currency}`}</bdi>
          </dd>
        </div>
        <div>
          <dt>{t('op.partner')}</dt>
          <dd>{order.partner_id}</dd>
        </div>
        <div>
          <dt>{t('op.queue.step')}</dt>
          <dd>{run?.state?.step ?? ''}</dd>
        </div>
      </dl>
      {run?.state?.lastError && (
        <p>
          {t('op.queue.last_error')} <code>{run.state.lastError}</code>
        </p>
      )}
      {run && (
        <p>
          <WorkflowLink kit={kit} r={r} id={run.workflow_id} />
        </p>
      )}
      <h2>{t('op.queue.decision')}</h2>
      <form class="stack" method="post" action={`/console/queue/${orderId}`}>
        <input type="hidden" name="csrf" value={csrf} />
        <label>
          {t('op.queue.reason')}
          <input type="text" name="reason" required minlength={3} maxlength={1000} />
        </label>
        <label>
          {t('op.queue.supplier_ref')}
          <input type="text" name="supplier_ref" maxlength={200} />
        </label>
        <p class="hint">{t('op.queue.actions_help')}</p>
        <div class="actions">
          {ACTIONS.map((a) => (
            <button type="submit" name="action" value={a}>
              {t(`op.action.${a}`)}
            </button>
          ))}
        </div>
      </form>
    </>
  );
}

const orderOf = (raw: string | undefined) => (raw && /^[1-9][0-9]{0,9}$/.test(raw) ? Number(raw) : null);

/** `/console/`: the queue; `/console/queue/:order`: deciding one parked order (a reason required, audited by the API). */
export const queuePages: OperatorPages = (app, kit) => {
  app.get(
    '/',
    kit.signedIn(async (r, viewer) => kit.page(r, r.t('op.queue.title'), await Queue({ r, kit }), viewer)),
  );
  app.get(
    '/queue/:order',
    kit.signedIn(async (r, viewer) => {
      const orderId = orderOf(r.c.req.param('order'));
      if (orderId === null) return kit.page(r, r.t('error.title'), <Notice kind="error">{r.t('op.not_found')}</Notice>, viewer, 404);
      return kit.page(r, r.t('op.queue.decide', { order: orderId }), await Decide({ r, kit, orderId, csrf: viewer.csrfToken }), viewer);
    }),
  );
  app.post(
    '/queue/:order',
    kit.signedIn(async (r, viewer) => {
      const orderId = orderOf(r.c.req.param('order'));
      const action = field(r, 'action');
      if (orderId === null || !(ACTIONS as readonly string[]).includes(action)) {
        return kit.page(r, r.t('error.title'), <Notice kind="error">{r.t('op.not_found')}</Notice>, viewer, 404);
      }
      const supplierRef = field(r, 'supplier_ref');
      const decision = {
        params: { path: { id: String(orderId) } },
        body: { reason: field(r, 'reason'), ...(supplierRef ? { supplier_ref: supplierRef } : {}) },
      };
      const { error, response } =
        action === 'retry'
          ? await r.api.POST('/admin/orders/{id}/retry', decision)
          : action === 'confirm'
            ? await r.api.POST('/admin/orders/{id}/confirm', decision)
            : await r.api.POST('/admin/orders/{id}/compensate', decision);
      if (response.status === 200) return r.c.redirect(`/console/?decided=${action}&order=${orderId}`, 303);
      const body = await Decide({ r, kit, orderId, csrf: viewer.csrfToken, error: errorOf(error, r.t('error.title')) });
      return kit.page(r, r.t('op.queue.decide', { order: orderId }), body, viewer, pageStatusOf(response.status));
    }),
  );
};
