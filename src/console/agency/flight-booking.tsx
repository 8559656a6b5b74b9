import type { Hono } from 'hono';
import type { components } from '../../client/partner-api';
import { Notice, type Viewer } from '../layout';
import { Amount, errorOf, field, pageStatusOf, readingAs } from './answers';
import type { AgencyKit } from './kit';
import type { ConsoleRequest } from './request';
import { CountOptions, dayAfter, scenarioOf, searchPage } from './search-page';

type Traveller = components['schemas']['FlightBookingRequest']['traveler_info']['air_travelers'][number];
const CABINS = ['economy', 'premium_economy', 'business', 'first'] as const;
type Cabin = (typeof CABINS)[number];
const IATA = /^[A-Za-z]{3}$/;

interface Asked {
  origin: string;
  destination: string;
  date: string;
  adults: number;
  cabin: Cabin;
  scenario: string;
}

const askedOf = (q: Record<string, string>): Asked => ({
  origin: IATA.test(q.origin ?? '') ? q.origin!.toUpperCase() : '',
  destination: IATA.test(q.destination ?? '') ? q.destination!.toUpperCase() : '',
  date: q.date ?? dayAfter(30),
  adults: q.adults && /^[1-4]$/.test(q.adults) ? Number(q.adults) : 1,
  cabin: (CABINS as readonly string[]).includes(q.cabin ?? '') ? (q.cabin as Cabin) : 'economy',
  scenario: scenarioOf(q),
});

async function SearchPage({ r, viewer }: { r: ConsoleRequest; viewer: Viewer }) {
  const { t } = r;
  return searchPage(r, {
    action: '/console/flights',
    askedOf,
    sentWith: 'origin',
    search: (asked) =>
      r.api.POST('/flights/search_flights/', {
        body: {
          origin: asked.origin,
          destination: asked.destination,
          departure_date_time: asked.date,
          adult_count: asked.adults,
          cabin_type: asked.cabin,
          air_trip_type: 'one_way',
        },
        ...readingAs(viewer),
      }),
    fields: (asked) => (
      <>
        <label>
          {t('flights.origin')}
          <input type="text" name="origin" required pattern="[A-Za-z]{3}" maxlength={3} value={asked.origin} autocomplete="off" />
        </label>
        <label>
          {t('flights.destination')}
          <input type="text" name="destination" required pattern="[A-Za-z]{3}" maxlength={3} value={asked.destination} autocomplete="off" />
        </label>
        <label>
          {t('flights.date')}
          <input type="date" name="date" required value={asked.date} />
        </label>
        <label>
          {t('flights.adults')}
          <select name="adults">
            <CountOptions max={4} chosen={asked.adults} />
          </select>
        </label>
        <label>
          {t('flights.cabin')}
          <select name="cabin">
            {CABINS.map((c) => (
              <option value={c} selected={c === asked.cabin}>
                {t(`flights.cabin_${c}`)}
              </option>
            ))}
          </select>
        </label>
      </>
    ),
    scenarioLabel: t('flights.scenario'),
    resultsTitle: t('flights.results'),
    results: (found, asked) =>
      found.results.length === 0 ? (
        <p>{t('flights.none')}</p>
      ) : (
        <div class="table-wrap">
          <table class="flights">
            <thead>
              <tr>
                <th scope="col">{t('flights.flight')}</th>
                <th scope="col">{t('flights.departure')}</th>
                <th scope="col">{t('flights.fare')}</th>
                <th scope="col">{t('hotels.refundable')}</th>
                <th scope="col">{t('flights.price')}</th>
                <th scope="col">{t('hotels.action')}</th>
              </tr>
            </thead>
            <tbody>
              {found.results.map((offer) => {
                const segments = offer.legs.flatMap((l) => l.segments);
                const name = segments.map((s) => `${s.flight_number} ${s.origin}→${s.destination}`).join(', ');
                return (
                  <tr>
                    <th scope="row">
                      <bdi>{name}</bdi>
                    </th>
                    <td>
                      <bdi>{(segments[0]?.departure ?? '').slice(0, 16).replace('T', ' ')}</bdi>
                    </td>
                    <td>{offer.fare_family}</td>
                    <td>{offer.refundable ? t('hotels.yes') : t('hotels.no')}</td>
                    <td class="amount">
                      <Amount value={offer.total_price} currency={offer.currency} />
                    </td>
                    <td>
                      <form method="post" action="/console/flights/fare">
                        <input type="hidden" name="csrf" value={viewer.csrfToken} />
                        <input type="hidden" name="fare_source_code" value={offer.fare_source_code} />
                        <input type="hidden" name="adults" value={String(asked.adults)} />
                        <input type="hidden" name="scenario" value={asked.scenario} />
                        <button type="submit" class="secondary" aria-label={`${t('flights.check')}: ${name}, ${offer.fare_family}`}>
                          {t('flights.check')}
                        </button>
                      </form>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ),
  });
}

/** The travellers the booking form names; a traveller left wholly blank is left out. */
function travellersOf(form: Record<string, unknown>): Traveller[] {
  const out: Traveller[] = [];
  for (let i = 0; i < 9 && `t${i}_first` in form; i++) {
    const at = (name: string) => field(form, `t${i}_${name}`);
    if (!at('first') && !at('last')) continue;
    out.push({
      first_name: at('first'),
      last_name: at('last'),
      birth_date: at('birth'),
      gender: at('gender') === 'female' ? 'female' : 'male',
      passenger_type: 'ADT',
      nationality: at('nationality').toUpperCase(),
      ...(at('national_id') ? { national_id: at('national_id') } : {}),
      ...(at('passport') ? { passport_number: at('passport') } : {}),
      ...(at('passport_expiry') ? { passport_expiry_date: at('passport_expiry') } : {}),
    });
  }
  return out;
}

/** `/console/flights`: search, check the fare, book with the travellers (the order to pay). */
export function flightPages(app: Hono, kit: AgencyKit): void {
  const failed = (r: ConsoleRequest, viewer: Viewer, text: string, status: Parameters<AgencyKit['page']>[4]) =>
    kit.page(
      r,
      r.t('flights.book_title'),
      <>
        <Notice kind="error">{text}</Notice>
        <p>
          <a href="/console/flights">{r.t('hotels.search_again')}</a>
        </p>
      </>,
      viewer,
      status,
    );

  app.get(
    '/flights',
    kit.signedIn(async (r, viewer) => {
      const { body, status } = await SearchPage({ r, viewer });
      return kit.page(r, r.t('flights.search'), body, viewer, status);
    }),
  );

  app.post(
    '/flights/fare',
    kit.signedIn(async (r, viewer) => {
      const { t } = r;
      const form = await r.c.req.parseBody();
      const scenario = field(form, 'scenario') === 'price_changed' ? ('price_changed' as const) : undefined;
      const res = await r.api.POST('/flights/revalidate_flight/', {
        body: { fare_source_code: field(form, 'fare_source_code') },
        ...(scenario ? { params: { header: { 'x-sandbox-scenario': scenario } } } : {}),
      });
      const fare = res.data?.data;
      if (!fare || !fare.is_valid)
        return failed(r, viewer, t('flights.unavailable', { error: fare ? t('flights.not_valid') : errorOf(res) }), fare ? 409 : pageStatusOf(res));
      const adults = /^[1-4]$/.test(field(form, 'adults')) ? Number(field(form, 'adults')) : 1;
      return kit.page(
        r,
        t('flights.book_title'),
        <>
          {fare.price_changed && (
            <Notice kind="error">
              {t('hotels.price_changed', { before: `${fare.previous_price} ${fare.currency}`, after: `${fare.total_price} ${fare.currency}` })}
            </Notice>
          )}
          <dl class="facts">
            <dt>{t('flights.price')}</dt>
            <dd data-figure="fare-price">
              <Amount value={fare.total_price} currency={fare.currency} />
            </dd>
          </dl>
          <form class="stack booking-form" method="post" action="/console/flights/book">
            <input type="hidden" name="csrf" value={viewer.csrfToken} />
            <input type="hidden" name="fare_source_code" value={fare.fare_source_code} />
            <h2>{t('flights.travellers')}</h2>
            {Array.from({ length: adults }, (_, i) => (
              <fieldset>
                <legend>{t('flights.traveller_n', { n: i + 1 })}</legend>
                <label>
                  {t('hotels.first_name')}
                  <input type="text" name={`t${i}_first`} required maxlength={60} autocomplete="off" />
                </label>
                <label>
                  {t('hotels.last_name')}
                  <input type="text" name={`t${i}_last`} required maxlength={60} autocomplete="off" />
                </label>
                <label>
                  {t('flights.birth_date')}
                  <input type="date" name={`t${i}_birth`} required />
                </label>
                <label>
                  {t('flights.gender')}
                  <select name={`t${i}_gender`}>
                    <option value="male">{t('flights.male')}</option>
                    <option value="female">{t('flights.female')}</option>
                  </select>
                </label>
                <label>
                  {t('hotels.guest_nationality')}
                  <input type="text" name={`t${i}_nationality`} pattern="[A-Za-z]{2}" maxlength={2} value="IR" autocomplete="off" />
                </label>
                <label>
                  {t('hotels.national_id')}
                  <input type="text" name={`t${i}_national_id`} inputmode="numeric" maxlength={10} autocomplete="off" />
                </label>
                <label>
                  {t('hotels.passport')}
                  <input type="text" name={`t${i}_passport`} maxlength={20} autocomplete="off" />
                </label>
                <label>
                  {t('flights.passport_expiry')}
                  <input type="date" name={`t${i}_passport_expiry`} />
                </label>
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
            {fare.price_changed && (
              <label class="check">
                <input type="checkbox" name="accept" value="yes" required />
                {t('hotels.accept_price', { price: `${fare.total_price} ${fare.currency}` })}
              </label>
            )}
            <button type="submit">{t('hotels.book')}</button>
          </form>
        </>,
        viewer,
      );
    }),
  );

  app.post(
    '/flights/book',
    kit.signedIn(async (r, viewer) => {
      const form = await r.c.req.parseBody();
      const res = await r.api.POST('/flights/air_booking/', {
        body: {
          fare_source_code: field(form, 'fare_source_code'),
          traveler_info: { contact: { phone_number: field(form, 'phone'), email: field(form, 'email') }, air_travelers: travellersOf(form) },
        },
      });
      if (!res.data) return failed(r, viewer, errorOf(res), pageStatusOf(res));
      return r.c.redirect(`/console/bookings/flight/${res.data.data.id}?done=ordered`, 303);
    }),
  );
}
