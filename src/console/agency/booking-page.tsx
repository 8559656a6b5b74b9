import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import type { components } from '../../client/partner-api';
import type { MessageKey } from '../messages/en';
import { Notice, type Viewer } from '../layout';
import { Amount, decimalParam, errorOf, field, pageStatusOf, readingAs } from './answers';
import type { AgencyKit, PageStatus } from './kit';
import type { ConsoleRequest } from './request';

type TravelOrder = components['schemas']['TravelOrder'];
type HotelBooking = components['schemas']['HotelBooking'];
type FlightBooking = NonNullable<components['schemas']['FlightBooking']>;
type Service = 'hotel' | 'flight';

/** The services whose bookings have a page: those Interface A reads one booking of, and cancels after a quote. */
const SERVICES: ReadonlySet<string> = new Set(['hotel', 'flight']);
const ID = /^[1-9]\d{0,8}$/;
/** The most pages of an order's events the timeline reads (15 events a page). */
const MAX_EVENT_PAGES = 5;

interface Found {
  order: TravelOrder;
  hotel?: HotelBooking | null;
  flight?: FlightBooking | null;
}

/** The order and its booking, as the service's booking_data answers them. */
async function bookingOf(r: ConsoleRequest, viewer: Viewer, service: Service, orderId: number) {
  if (service === 'hotel') {
    const res = await r.api.POST('/hotel/booking_data/', { body: { order_id: orderId }, ...readingAs(viewer) });
    const d = res.data?.data;
    return d?.order ? { found: { order: d.order, hotel: d.booking } as Found } : { res };
  }
  const res = await r.api.POST('/flights/air_booking_data/', { body: { order_id: orderId }, ...readingAs(viewer) });
  const d = res.data?.data;
  return d ? { found: { order: d.order, flight: d.booking } as Found } : { res };
}

/** The order's events, oldest first: its status history. */
async function eventsOf(r: ConsoleRequest, orderId: number) {
  const out: components['schemas']['Event'][] = [];
  let after: string | undefined;
  for (let i = 0; i < MAX_EVENT_PAGES; i++) {
    const res = await r.api.GET('/partners/events/', { params: { query: { order_id: String(orderId), ...(after ? { after } : {}) } } });
    const page = res.data?.data;
    if (!page) break;
    out.push(...page.results);
    if (!page.next || page.results.length === 0) break;
    after = String(page.results.at(-1)!.id);
  }
  return out;
}

const eventLabel = (r: ConsoleRequest, type: string) => {
  const key = `event.${type}` as MessageKey;
  const said = r.t(key);
  return said === undefined || said === key ? type : said;
};
const statusLabel = (r: ConsoleRequest, status: string) => r.t(`status.${status}` as MessageKey) ?? status;

function Facts({ r, found }: { r: ConsoleRequest; found: Found }) {
  const { t } = r;
  const { order, hotel, flight } = found;
  const segments = flight?.legs.flatMap((l) => l.segments) ?? [];
  return (
    <section aria-labelledby="facts-heading">
      <h2 id="facts-heading">{t('booking.facts')}</h2>
      <dl class="facts">
        <dt>{t('booking.service')}</dt>
        <dd>{t(`service.${order.service}` as MessageKey) ?? order.service}</dd>
        <dt>{t('booking.status')}</dt>
        <dd data-figure="status">{statusLabel(r, order.status)}</dd>
        <dt>{t('booking.total')}</dt>
        <dd>
          <Amount value={order.total_price} currency={order.currency} />
        </dd>
        <dt>{t('booking.made')}</dt>
        <dd>
          <time datetime={order.created_at}>{order.created_at.slice(0, 16).replace('T', ' ')}</time>
        </dd>
        <dt>{t('booking.by')}</dt>
        <dd>{(order.created_by as { name?: string } | null)?.name ?? '—'}</dd>
        {order.supplier_ref && (
          <>
            <dt>{t('booking.reference')}</dt>
            <dd>{order.supplier_ref}</dd>
          </>
        )}
        {hotel && (
          <>
            <dt>{t('booking.hotel')}</dt>
            <dd>{hotel.hotel_name ?? '—'}</dd>
            <dt>{t('booking.room')}</dt>
            <dd>{`${hotel.room_name ?? '—'} · ${hotel.board ?? ''}`}</dd>
            <dt>{t('booking.stay')}</dt>
            <dd>
              <bdi>{`${hotel.check_in ?? '—'} → ${hotel.check_out ?? '—'}`}</bdi>
            </dd>
            {hotel.confirmation_number && (
              <>
                <dt>{t('booking.confirmation')}</dt>
                <dd>{hotel.confirmation_number}</dd>
              </>
            )}
          </>
        )}
        {flight && segments.length > 0 && (
          <>
            <dt>{t('booking.flight')}</dt>
            <dd>
              <bdi>{segments.map((s) => `${s.flight_number} ${s.origin}→${s.destination}`).join(', ')}</bdi>
            </dd>
            <dt>{t('booking.departure')}</dt>
            <dd>
              <bdi>{segments[0]!.departure.slice(0, 16).replace('T', ' ')}</bdi>
            </dd>
          </>
        )}
      </dl>
      {hotel?.expires_at && order.status === 'pending' && <p>{t('booking.hold_expires', { time: hotel.expires_at })}</p>}
    </section>
  );
}

/** What came back of the money: the cancellation's answer just made, or what the order's status says. */
function RefundState({ r, order }: { r: ConsoleRequest; order: TravelOrder }) {
  const { t } = r;
  const q = r.c.req.query();
  const refund = decimalParam(q.refund);
  const penalty = decimalParam(q.penalty) ?? '0.00';
  const text =
    q.done === 'cancelled' && refund !== undefined
      ? t('booking.cancelled', { refund: `${refund} ${order.currency}`, penalty: `${penalty} ${order.currency}` })
      : q.done === 'cancelling'
        ? t('booking.cancelling')
        : order.status === 'refund_requested'
          ? t('booking.refund_requested')
          : order.status === 'refunded' || (order.status === 'cancelled' && order.completed_at !== null)
            ? t('booking.refund_done')
            : order.status === 'cancelled'
              ? t('booking.refund_none')
              : undefined;
  if (!text) return null;
  return (
    <section aria-labelledby="refund-heading">
      <h2 id="refund-heading">{t('booking.refund_state')}</h2>
      <p data-figure="refund">{text}</p>
    </section>
  );
}

async function Documents({ r, service, order }: { r: ConsoleRequest; service: Service; order: TravelOrder }) {
  const { t } = r;
  const res = await r.api.GET('/partners/orders/{id}/documents/', { params: { path: { id: String(order.id) } } });
  const docs = res.data?.data.documents;
  if (!docs) return null;
  return (
    <section aria-labelledby="documents-heading">
      <h2 id="documents-heading">{t('booking.documents')}</h2>
      {docs.length === 0 ? (
        <p>{t('booking.no_documents')}</p>
      ) : (
        <ul class="documents">
          {docs.map((d) => {
            const file = d.url.split('/').pop() ?? '';
            return (
              <li>
                {d.available ? (
                  <a href={`/console/bookings/${service}/${order.id}/documents/${encodeURIComponent(file)}`} download={file}>
                    {t('booking.download', { title: d.title })}
                  </a>
                ) : (
                  t('booking.not_yet', { title: d.title, reason: d.reason ?? '' })
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

async function Timeline({ r, order }: { r: ConsoleRequest; order: TravelOrder }) {
  const { t } = r;
  const events = await eventsOf(r, order.id);
  return (
    <section aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">{t('booking.timeline')}</h2>
      {events.length === 0 ? (
        <p>{t('booking.no_events')}</p>
      ) : (
        <ol class="timeline">
          {events.map((e) => (
            <li data-event={e.type}>
              <time datetime={e.created_at}>{e.created_at.slice(0, 19).replace('T', ' ')}</time> <span>{eventLabel(r, e.type)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function Actions({ r, viewer, service, order }: { r: ConsoleRequest; viewer: Viewer; service: Service; order: TravelOrder }) {
  const { t } = r;
  const base = `/console/bookings/${service}/${order.id}`;
  const canPay = order.status === 'pending' && order.payment_method === 'PARTNER_CREDIT' && viewer.rights.has('pay');
  const canCancel = (order.status === 'pending' || order.status === 'completed') && viewer.rights.has('modify');
  return (
    <>
      {canPay && (
        <section aria-labelledby="pay-heading">
          <h2 id="pay-heading">{t('booking.pay')}</h2>
          <p>{t('booking.pay_explain')}</p>
          {/* One key per drawn form: a second submit of the same form pays once. */}
          <form method="post" action={`${base}/pay`}>
            <input type="hidden" name="csrf" value={viewer.csrfToken} />
            <input type="hidden" name="idempotency_key" value={`console-${randomUUID()}`} />
            <button type="submit">{t('booking.pay_submit', { amount: `${order.total_price} ${order.currency}` })}</button>
          </form>
        </section>
      )}
      {canCancel && (
        <section aria-labelledby="cancel-heading">
          <h2 id="cancel-heading">{t('booking.cancel')}</h2>
          <p>{t('booking.cancel_explain')}</p>
          <form method="post" action={`${base}/cancel-quote`}>
            <input type="hidden" name="csrf" value={viewer.csrfToken} />
            <button type="submit" class="secondary">
              {t('booking.cancel_quote')}
            </button>
          </form>
        </section>
      )}
    </>
  );
}

const DONE_NOTES: Partial<Record<string, MessageKey>> = { ordered: 'booking.ordered', paid: 'booking.paid', processing: 'booking.processing' };

/** `/console/bookings/{service}/{id}`: one booking, its history, documents, payment and cancellation. */
export function bookingPages(app: Hono, kit: AgencyKit): void {
  const target = (r: ConsoleRequest): { service: Service; id: number } | null => {
    const { service, id } = r.c.req.param() as { service: string; id: string };
    return SERVICES.has(service) && ID.test(id) ? { service: service as Service, id: Number(id) } : null;
  };
  const notFound = (r: ConsoleRequest, viewer: Viewer, text = r.t('booking.not_found'), status: PageStatus = 404) =>
    kit.page(r, r.t('bookings.title'), <Notice kind="error">{text}</Notice>, viewer, status);

  const show = async (r: ConsoleRequest, viewer: Viewer, notice?: { text: string; status: PageStatus }) => {
    const at = target(r);
    if (!at) return notFound(r, viewer);
    const got = await bookingOf(r, viewer, at.service, at.id);
    if (!got.found) return notFound(r, viewer, errorOf(got.res), pageStatusOf(got.res));
    const { order } = got.found;
    const done = DONE_NOTES[r.c.req.query('done') ?? ''];
    return kit.page(
      r,
      r.t('booking.title', { id: order.id }),
      <>
        {notice && <Notice kind="error">{notice.text}</Notice>}
        {!notice && done && <Notice kind="info">{r.t(done)}</Notice>}
        <Facts r={r} found={got.found} />
        <RefundState r={r} order={order} />
        <Actions r={r} viewer={viewer} service={at.service} order={order} />
        {viewer.rights.has('view') && (await Timeline({ r, order }))}
        {viewer.rights.has('view') && (await Documents({ r, service: at.service, order }))}
      </>,
      viewer,
      notice?.status ?? 200,
    );
  };

  app.get(
    '/bookings/:service/:id',
    kit.signedIn(async (r, viewer) => show(r, viewer)),
  );

  app.post(
    '/bookings/:service/:id/pay',
    kit.signedIn(async (r, viewer) => {
      const at = target(r);
      if (!at) return notFound(r, viewer);
      const key = field(await r.c.req.parseBody(), 'idempotency_key');
      const res = await r.api.POST('/partners/pay/', { body: { order_id: at.id, ...(key ? { idempotency_key: key } : {}) } });
      if (res.response.status === 200) return r.c.redirect(`/console/bookings/${at.service}/${at.id}?done=paid`, 303);
      if (res.response.status === 202) return r.c.redirect(`/console/bookings/${at.service}/${at.id}?done=processing`, 303);
      return show(r, viewer, { text: errorOf(res), status: pageStatusOf(res) });
    }),
  );

  /** The cancellation's terms now, and the step that confirms them. */
  app.post(
    '/bookings/:service/:id/cancel-quote',
    kit.signedIn(async (r, viewer) => {
      const at = target(r);
      if (!at) return notFound(r, viewer);
      const quote =
        at.service === 'hotel'
          ? await r.api
              .POST('/hotel/cancel_display/', { body: { order_id: at.id } })
              .then((res) => (res.data ? { ok: res.data.data, refund: res.data.data.refund_amount } : { res }))
          : await r.api
              .POST('/flights/air_refund_display/', { body: { order_id: at.id } })
              .then((res) => (res.data ? { ok: res.data.data, refund: res.data.data.refundable_amount } : { res }));
      if (!quote.ok) return show(r, viewer, { text: errorOf(quote.res!), status: pageStatusOf(quote.res!) });
      const { t } = r;
      const q = quote.ok;
      return kit.page(
        r,
        t('booking.quote_title', { id: at.id }),
        <>
          <dl class="facts">
            <dt>{t('booking.quote_penalty')}</dt>
            <dd data-figure="penalty">
              <Amount value={q.penalty} currency={q.currency} />
            </dd>
            <dt>{t('booking.quote_refund')}</dt>
            <dd data-figure="quote-refund">
              <Amount value={quote.refund} currency={q.currency} />
            </dd>
          </dl>
          <p>{t('booking.quote_expires', { time: q.expires_at })}</p>
          <form method="post" action={`/console/bookings/${at.service}/${at.id}/cancel`} class="actions">
            <input type="hidden" name="csrf" value={viewer.csrfToken} />
            <input type="hidden" name="quote_id" value={q.quote_id} />
            <button type="submit" class="danger">
              {t('booking.confirm_cancel')}
            </button>
            <a class="button secondary" href={`/console/bookings/${at.service}/${at.id}`}>
              {t('booking.keep')}
            </a>
          </form>
        </>,
        viewer,
      );
    }),
  );

  app.post(
    '/bookings/:service/:id/cancel',
    kit.signedIn(async (r, viewer) => {
      const at = target(r);
      if (!at) return notFound(r, viewer);
      const quoteId = field(await r.c.req.parseBody(), 'quote_id');
      const body = { order_id: at.id, ...(quoteId ? { quote_id: quoteId } : {}) };
      const res = at.service === 'hotel' ? await r.api.POST('/hotel/cancel/', { body }) : await r.api.POST('/flights/air_refund/', { body });
      const base = `/console/bookings/${at.service}/${at.id}`;
      if (res.response.status === 202) return r.c.redirect(`${base}?done=cancelling`, 303);
      const out = res.data?.data as { refund_amount?: string; penalty?: string } | undefined;
      if (!out) return show(r, viewer, { text: errorOf(res), status: pageStatusOf(res) });
      const refund = new URLSearchParams({ done: 'cancelled', refund: out.refund_amount ?? '0.00', penalty: out.penalty ?? '0.00' });
      return r.c.redirect(`${base}?${refund.toString()}`, 303);
    }),
  );

  /** A document passed on as the API answers it: its bytes, type and file name. */
  app.get(
    '/bookings/:service/:id/documents/:file',
    kit.signedIn(async (r, viewer) => {
      const at = target(r);
      if (!at) return notFound(r, viewer);
      const res = await r.api.GET('/partners/orders/{id}/documents/{file}', {
        params: { path: { id: String(at.id), file: r.c.req.param('file') ?? '' } },
        parseAs: 'arrayBuffer',
      });
      if (!res.response.ok) return notFound(r, viewer, errorOf(res), pageStatusOf(res));
      const headers: Record<string, string> = { 'content-type': res.response.headers.get('content-type') ?? 'application/octet-stream' };
      const disposition = res.response.headers.get('content-disposition');
      if (disposition) headers['content-disposition'] = disposition;
      return r.c.body(res.data as unknown as ArrayBuffer, 200, headers);
    }),
  );
}
