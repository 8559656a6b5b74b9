import type { Hono } from 'hono';
import type { components } from '../../client/partner-api';
import { Notice, type Viewer } from '../layout';
import { Amount, errorOf, field, pageStatusOf, readingAs } from './answers';
import type { AgencyKit } from './kit';
import type { ConsoleRequest } from './request';
import { CountOptions, dayAfter, scenarioOf, searchPage } from './search-page';

type RateCheck = components['schemas']['HotelRateCheck'];
type Guest = components['schemas']['HotelBookRequest']['guests'][number][number];
type Scenario = 'price_changed';

const count = (raw: string | undefined, max: number, fallback: number) => (raw && /^[1-9]$/.test(raw) && Number(raw) <= max ? Number(raw) : fallback);

interface SearchAsked {
  city_id: string;
  check_in: string;
  check_out: string;
  rooms: number;
  adults: number;
  nationality: string;
  scenario: string;
}

const askedOf = (q: Record<string, string>): SearchAsked => ({
  city_id: q.city_id ?? '',
  check_in: q.check_in ?? dayAfter(30),
  check_out: q.check_out ?? dayAfter(32),
  rooms: count(q.rooms, 4, 1),
  adults: count(q.adults, 4, 2),
  nationality: (q.nationality ?? 'IR').toUpperCase(),
  scenario: scenarioOf(q),
});

async function SearchPage({ r, viewer }: { r: ConsoleRequest; viewer: Viewer }) {
  const { t } = r;
  const cities = (await r.api.GET('/hotel/cities/')).data?.data ?? [];
  return searchPage(r, {
    action: '/console/hotels',
    askedOf,
    sentWith: 'check_in',
    search: (asked) =>
      r.api.POST('/hotel/search_hotels/', {
        body: {
          check_in: asked.check_in,
          check_out: asked.check_out,
          ...(asked.city_id ? { city_id: Number(asked.city_id) } : {}),
          nationality_id: asked.nationality,
          rooms: Array.from({ length: asked.rooms }, () => ({ adult_count: asked.adults })),
        },
        ...readingAs(viewer),
      }),
    fields: (asked) => (
      <>
        <label>
          {t('hotels.city')}
          <select name="city_id" required>
            {cities.map((city) => (
              <option value={String(city.id)} selected={String(city.id) === asked.city_id}>
                {`${city.name} (${city.iata_code})`}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('hotels.check_in')}
          <input type="date" name="check_in" required value={asked.check_in} />
        </label>
        <label>
          {t('hotels.check_out')}
          <input type="date" name="check_out" required value={asked.check_out} />
        </label>
        <label>
          {t('hotels.rooms')}
          <select name="rooms">
            <CountOptions max={4} chosen={asked.rooms} />
          </select>
        </label>
        <label>
          {t('hotels.adults')}
          <select name="adults">
            <CountOptions max={4} chosen={asked.adults} />
          </select>
        </label>
        <label>
          {t('hotels.nationality')}
          <input type="text" name="nationality" required pattern="[A-Za-z]{2}" maxlength={2} value={asked.nationality} autocomplete="off" />
        </label>
      </>
    ),
    scenarioLabel: t('hotels.scenario'),
    resultsTitle: t('hotels.results'),
    results: (found, asked) => (
      <>
        {found.results.length === 0 && <p>{t('hotels.none')}</p>}
        {found.results.map((hotel) => (
          <article class="hotel" aria-labelledby={`hotel-${hotel.hotel_id}`}>
            <h3 id={`hotel-${hotel.hotel_id}`}>{hotel.name}</h3>
            <p>
              {t('hotels.stars', { stars: hotel.stars })} · {hotel.address}
            </p>
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('hotels.room')}</th>
                    <th scope="col">{t('hotels.board')}</th>
                    <th scope="col">{t('hotels.refundable')}</th>
                    <th scope="col">{t('hotels.price')}</th>
                    <th scope="col">{t('hotels.action')}</th>
                  </tr>
                </thead>
                <tbody>
                  {hotel.rates.map((rate) => (
                    <tr>
                      <th scope="row">{rate.room_name}</th>
                      <td>{rate.board}</td>
                      <td>{rate.refundable ? t('hotels.yes') : t('hotels.no')}</td>
                      <td class="amount">
                        <Amount value={rate.total_price} currency={rate.currency} />
                      </td>
                      <td>
                        <form method="post" action="/console/hotels/rate">
                          <input type="hidden" name="csrf" value={viewer.csrfToken} />
                          <input type="hidden" name="rate_key" value={rate.rate_key} />
                          <input type="hidden" name="nationality" value={asked.nationality} />
                          <input type="hidden" name="scenario" value={asked.scenario} />
                          <button type="submit" class="secondary" aria-label={`${t('hotels.check')}: ${hotel.name}, ${rate.room_name}, ${rate.board}`}>
                            {t('hotels.check')}
                          </button>
                        </form>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </article>
        ))}
      </>
    ),
  });
}

/** The rate as the hotel gives it now, with its cancellation policy, and the form that books it. */
function RatePage({ r, viewer, rate, nationality }: { r: ConsoleRequest; viewer: Viewer; rate: RateCheck; nationality: string }) {
  const { t } = r;
  const price = <Amount value={rate.total_price} currency={rate.currency} />;
  return (
    <>
      {rate.price_changed && (
        <Notice kind="error">
          {t('hotels.price_changed', { before: `${rate.previous_price} ${rate.currency}`, after: `${rate.total_price} ${rate.currency}` })}
        </Notice>
      )}
      <section aria-labelledby="rate-heading">
        <h2 id="rate-heading">{t('hotels.rate_facts')}</h2>
        <dl class="facts">
          <dt>{t('hotels.hotel')}</dt>
          <dd>{rate.hotel_name}</dd>
          <dt>{t('hotels.room')}</dt>
          <dd>{`${rate.room_name} · ${rate.board}`}</dd>
          <dt>{t('hotels.dates')}</dt>
          <dd>
            <bdi>{`${rate.check_in} → ${rate.check_out}`}</bdi>
          </dd>
          <dt>{t('hotels.price')}</dt>
          <dd data-figure="rate-price">{price}</dd>
          <dt>{t('hotels.refundable')}</dt>
          <dd>{rate.refundable ? t('hotels.yes') : t('hotels.no')}</dd>
        </dl>
        <p>{t('hotels.expires', { time: rate.expires_at })}</p>
        <h3>{t('hotels.policy')}</h3>
        {rate.cancellation_policy.length === 0 ? (
          <p>{t('hotels.policy_none')}</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">{t('hotels.policy_from')}</th>
                <th scope="col">{t('hotels.policy_penalty')}</th>
              </tr>
            </thead>
            <tbody>
              {rate.cancellation_policy.map((step) => (
                <tr>
                  <td>
                    <time datetime={step.from}>{step.from}</time>
                  </td>
                  <td class="amount">
                    <Amount value={step.penalty} currency={rate.currency} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <form class="stack booking-form" method="post" action="/console/hotels/book">
        <input type="hidden" name="csrf" value={viewer.csrfToken} />
        <input type="hidden" name="rate_key" value={rate.rate_key} />
        <input type="hidden" name="accepted_price" value={rate.total_price} />
        <h2>{t('hotels.guests')}</h2>
        {rate.rooms.map((room, i) => (
          <fieldset>
            <legend>{t('hotels.room_n', { n: i + 1 })}</legend>
            {Array.from({ length: Math.max(1, room.adults) }, (_, g) => (
              <fieldset class="guest">
                <legend>{t('hotels.guest_n', { n: g + 1 })}</legend>
                <label>
                  {t('hotels.first_name')}
                  <input type="text" name={`g${i}_${g}_first`} required={g === 0} maxlength={60} autocomplete="off" />
                </label>
                <label>
                  {t('hotels.last_name')}
                  <input type="text" name={`g${i}_${g}_last`} required={g === 0} maxlength={60} autocomplete="off" />
                </label>
                <label>
                  {t('hotels.guest_nationality')}
                  <input type="text" name={`g${i}_${g}_nationality`} pattern="[A-Za-z]{2}" maxlength={2} value={nationality} autocomplete="off" />
                </label>
                <label>
                  {t('hotels.national_id')}
                  <input type="text" name={`g${i}_${g}_national_id`} inputmode="numeric" maxlength={10} autocomplete="off" />
                </label>
                <label>
                  {t('hotels.passport')}
                  <input type="text" name={`g${i}_${g}_passport`} maxlength={20} autocomplete="off" />
                </label>
              </fieldset>
            ))}
          </fieldset>
        ))}
        <fieldset>
          <legend>{t('hotels.contact')}</legend>
          <label>
            {t('hotels.phone')}
            <input type="tel" name="phone" required autocomplete="tel" />
          </label>
          <label>
            {t('hotels.email')}
            <input type="email" name="email" required autocomplete="email" />
          </label>
        </fieldset>
        {rate.price_changed && (
          <label class="check">
            <input type="checkbox" name="accept" value="yes" required />
            {t('hotels.accept_price', { price: `${rate.total_price} ${rate.currency}` })}
          </label>
        )}
        <button type="submit">{t('hotels.book')}</button>
      </form>
    </>
  );
}

/** The guests the booking form names, one list per room; a guest left wholly blank is left out. */
function guestsOf(form: Record<string, unknown>): Guest[][] {
  const rooms: Guest[][] = [];
  for (let i = 0; i < 8 && `g${i}_0_first` in form; i++) {
    const room: Guest[] = [];
    for (let g = 0; g < 8 && `g${i}_${g}_first` in form; g++) {
      const at = (name: string) => field(form, `g${i}_${g}_${name}`);
      if (!at('first') && !at('last')) continue;
      room.push({
        first_name: at('first'),
        last_name: at('last'),
        nationality: at('nationality').toUpperCase(),
        ...(at('national_id') ? { national_id: at('national_id') } : {}),
        ...(at('passport') ? { passport_number: at('passport') } : {}),
      });
    }
    rooms.push(room);
  }
  return rooms;
}

/** `/console/hotels`: search, check a rate, book it with the guests, and make the order to pay. */
export function hotelPages(app: Hono, kit: AgencyKit): void {
  const failed = (r: ConsoleRequest, viewer: Viewer, title: string, text: string, status: Parameters<AgencyKit['page']>[4]) =>
    kit.page(
      r,
      title,
      <>
        <Notice kind="error">{text}</Notice>
        <p>
          <a href="/console/hotels">{r.t('hotels.search_again')}</a>
        </p>
      </>,
      viewer,
      status,
    );

  app.get(
    '/hotels',
    kit.signedIn(async (r, viewer) => {
      const { status, body } = await SearchPage({ r, viewer });
      return kit.page(r, r.t('hotels.search'), body, viewer, status);
    }),
  );

  app.post(
    '/hotels/rate',
    kit.signedIn(async (r, viewer) => {
      const form = await r.c.req.parseBody();
      const scenario: Scenario | undefined = field(form, 'scenario') === 'price_changed' ? 'price_changed' : undefined;
      const res = await r.api.POST('/hotel/check_rate/', {
        body: { rate_key: field(form, 'rate_key') },
        ...(scenario ? { params: { header: { 'x-sandbox-scenario': scenario } } } : {}),
      });
      if (!res.data) return failed(r, viewer, r.t('hotels.rate_title'), r.t('hotels.unavailable', { error: errorOf(res) }), pageStatusOf(res));
      const nationality = /^[A-Za-z]{2}$/.test(field(form, 'nationality')) ? field(form, 'nationality').toUpperCase() : 'IR';
      return kit.page(r, r.t('hotels.rate_title'), RatePage({ r, viewer, rate: res.data.data, nationality }), viewer);
    }),
  );

  app.post(
    '/hotels/book',
    kit.signedIn(async (r, viewer) => {
      const form = await r.c.req.parseBody();
      const booked = await r.api.POST('/hotel/book/', {
        body: { rate_key: field(form, 'rate_key'), guests: guestsOf(form), contact: { phone_number: field(form, 'phone'), email: field(form, 'email') } },
      });
      if (!booked.data) {
        const gone = /sold out|no longer available|expired/i.test(errorOf(booked));
        return failed(
          r,
          viewer,
          r.t('hotels.rate_title'),
          gone ? r.t('hotels.unavailable', { error: errorOf(booked) }) : errorOf(booked),
          pageStatusOf(booked),
        );
      }
      const hold = booked.data.data;
      // The hotel may hold the room at another price than the one the agent accepted: they confirm it first.
      if (hold.total_price !== field(form, 'accepted_price')) {
        return kit.page(
          r,
          r.t('hotels.rate_title'),
          <>
            <Notice kind="error">
              {r.t('hotels.hold_changed', { before: `${field(form, 'accepted_price')} ${hold.currency}`, after: `${hold.total_price} ${hold.currency}` })}
            </Notice>
            <form method="post" action="/console/hotels/order">
              <input type="hidden" name="csrf" value={viewer.csrfToken} />
              <input type="hidden" name="booking_id" value={String(hold.booking_id)} />
              <button type="submit">{r.t('hotels.confirm_order')}</button>
            </form>
          </>,
          viewer,
          409,
        );
      }
      return orderHold(r, viewer, hold.booking_id);
    }),
  );

  const orderHold = async (r: ConsoleRequest, viewer: Viewer, bookingId: number) => {
    const ordered = await r.api.POST('/hotel/order/', { body: { booking_id: bookingId } });
    if (!ordered.data) return failed(r, viewer, r.t('hotels.rate_title'), errorOf(ordered), pageStatusOf(ordered));
    return r.c.redirect(`/console/bookings/hotel/${ordered.data.data.id}?done=ordered`, 303);
  };

  app.post(
    '/hotels/order',
    kit.signedIn(async (r, viewer) => {
      const id = field(await r.c.req.parseBody(), 'booking_id');
      return orderHold(r, viewer, /^[1-9]\d{0,8}$/.test(id) ? Number(id) : 0);
    }),
  );
}
