import { createRoute, z } from '@hono/zod-openapi';
import { DomainError } from '../../domain/errors';
import { formatDecimal } from '../../domain/money/money';
import type { PropertyRow } from '../../domain/residence/availability';
import { listProperties, propertyDetail } from '../../domain/residence/catalogue';
import * as residence from '../../domain/residence/service';
import type { ReservationView } from '../../domain/residence/view';
import { partnerPricing, workflowDeps, type ApiDeps } from '../deps';
import type { Markup } from '../../domain/money/markup';
import { ownMarkup } from '../../domain/money/markup-rules';
import { sellRates } from '../../domain/residence/pricing';
import { created, ok, partnerRouter } from './router';
import { bodyId, calendarDate, country, countryFilter, idString, nationalId, passportNumber, phone, queryInt, text } from '../vocabulary';
import { sandboxScenario, scenarioOf } from '../sandbox-scenario';
import { commonErrors, Decimal, errorResponse, json, jsonBody, partnerOperations, renderTravelOrder, TravelOrder } from './schemas';
import { page, PageQuery, parsePage, renderPage } from './paging';

const StayDate = calendarDate('travel');
const IntId = bodyId();
const QueryId = (name: string) => z.object({ [name]: idString().openapi({ param: { name, in: 'query' } }) }) as z.ZodObject<Record<string, z.ZodString>>;

const Property = z
  .object({
    id: z.number().int(),
    code: z.string(),
    name: z.string(),
    type: z.string(),
    city: z.string(),
    region: z.string(),
    country: z.string(),
    address: z.string(),
    bedrooms: z.number().int(),
    max_guests: z.number().int(),
    nightly_price: Decimal,
    weekend_price: Decimal.openapi({ description: 'Thursday and Friday nights' }),
    cleaning_fee: Decimal,
    min_nights: z.number().int(),
    cancellation_policy: z.enum(['flexible', 'moderate', 'strict']),
    currency: z.string(),
  })
  .openapi('Property');

export const Reservation = z
  .object({
    reservation_id: z.number().int(),
    status: z.string(),
    property_id: z.number().int(),
    property_name: z.string(),
    check_in: z.string(),
    check_out: z.string(),
    nights: z.number().int(),
    guests: z.number().int(),
    lead_guest: z.record(z.string(), z.unknown()).nullable(),
    total_price: Decimal,
    currency: z.string(),
    expires_at: z.string(),
    seconds_left: z.number().int(),
    order_id: z.number().int().nullable(),
    order_status: z.string().nullable(),
    confirmation_number: z.string().nullable(),
    cancellation_policy: z.string(),
    cancel_refund: Decimal.nullable(),
  })
  .openapi('Reservation');

function renderProperty(p: PropertyRow, currency: string, markup: Markup): z.infer<typeof Property> {
  const rates = sellRates(p, markup);
  return {
    id: p.id,
    code: p.code,
    name: p.name,
    type: p.type,
    city: p.city,
    region: p.region,
    country: p.country,
    address: p.address,
    bedrooms: p.bedrooms,
    max_guests: p.maxGuests,
    nightly_price: formatDecimal(rates.nightlyPrice, currency),
    weekend_price: formatDecimal(rates.weekendPrice, currency),
    cleaning_fee: formatDecimal(rates.cleaningFee, currency),
    min_nights: p.minNights,
    cancellation_policy: p.cancellationPolicy,
    currency,
  };
}

/** A reservation as Interface A answers it (and the operator API after a host's acceptance); seconds_left counts from `now`. */
export function renderReservation({ reservation: r, property: p, nights, order }: ReservationView, now: Date): z.infer<typeof Reservation> {
  return {
    reservation_id: r.id,
    status: r.status,
    property_id: r.propertyId,
    property_name: p.name,
    check_in: r.checkIn,
    check_out: r.checkOut,
    nights,
    guests: r.guests,
    lead_guest: r.leadGuest,
    total_price: formatDecimal(r.totalPrice, r.currency),
    currency: r.currency,
    expires_at: r.expiresAt.toISOString(),
    seconds_left: r.status === 'held' || r.status === 'booked' ? Math.max(0, Math.floor((r.expiresAt.getTime() - now.getTime()) / 1000)) : 0,
    order_id: r.orderId,
    order_status: order?.status ?? null,
    confirmation_number: r.confirmationNumber,
    cancellation_policy: p.cancellationPolicy,
    cancel_refund: r.cancelRefund === null ? null : formatDecimal(r.cancelRefund, r.currency),
  };
}

const LeadGuest = z.object({
  first_name: text(100),
  last_name: text(100),
  nationality: country(),
  phone_number: phone(),
  national_id: nationalId().optional(),
  passport_number: passportNumber().optional(),
});

const ReserveBody = z
  .object({ property_id: IntId, check_in: StayDate, check_out: StayDate, guests: z.number().int().min(1).max(30), lead_guest: LeadGuest })
  .openapi('ReserveRequest');
const ReservationIdBody = z.object({ reservation_id: IntId });
const ModifyBody = ReservationIdBody.extend({ check_in: StayDate, check_out: StayDate, guests: z.number().int().min(1).max(30) }).openapi('ModifyStayRequest');

const tags = ['Residence'];
const { get, post } = partnerOperations(tags);

/** A stay whose refused change could not be undone yet takes no change and no cancellation until it is. */
const UNDO_UNDER_WAY = errorResponse('An earlier change of this stay was refused and is still being undone: try again once it is');

const routes = {
  list: createRoute({
    ...get('/residence/properties/list/', 'Villas and apartments; with check_in and check_out, only those free then'),
    request: {
      query: PageQuery.extend({
        city: text(100, { blank: true }).optional(),
        country: countryFilter().optional(),
        type: text(20, { blank: true }).optional(),
        guests: queryInt(1, 30).optional(),
        check_in: StayDate.optional(),
        check_out: StayDate.optional(),
      }),
    },
    responses: { 200: json(page(Property), 'A page of properties'), ...commonErrors },
  }),
  detail: createRoute({
    ...get('/residence/properties/detail/', 'A property with amenities, house rules, policy and unavailable dates'),
    request: { query: QueryId('property_id') },
    responses: {
      200: json(
        Property.extend({
          description: z.string(),
          amenities: z.array(z.string()),
          house_rules: z.array(z.string()),
          unavailable: z.array(z.object({ from: z.string(), to: z.string() })),
        }),
        'The property',
      ),
      ...commonErrors,
    },
  }),
  reserve: createRoute({
    ...post('/residence/reserve/', 'Hold dates for a limited time'),
    request: { body: jsonBody(ReserveBody) },
    responses: { 200: json(Reservation, 'The hold'), ...commonErrors },
  }),
  time: createRoute({
    ...get('/residence/reserve/time/', 'Seconds left on a hold'),
    request: { query: QueryId('reservation_id') },
    responses: {
      200: json(z.object({ reservation_id: z.number().int(), status: z.string(), expires_at: z.string(), seconds_left: z.number().int() }), 'Time left'),
      ...commonErrors,
    },
  }),
  reserveDetail: createRoute({
    ...get('/residence/reserve/detail/', 'A reservation’s state'),
    request: { query: QueryId('reservation_id') },
    responses: { 200: json(Reservation, 'The reservation'), ...commonErrors },
  }),
  book: createRoute({
    ...post('/residence/reserve/book/', 'Turn held dates into a travel order to pay'),
    request: { body: jsonBody(ReservationIdBody) },
    responses: {
      201: json(TravelOrder.extend({ reservation_id: z.number().int(), hold_expires_at: z.string() }), 'The pending order and its reservation'),
      ...commonErrors,
    },
  }),
  cancel: createRoute({
    ...post('/residence/bookings/cancel/', 'Cancel: an unpaid hold is released; a paid stay waits for the host'),
    request: { body: jsonBody(ReservationIdBody) },
    responses: {
      200: json(z.object({ reservation_id: z.number().int(), status: z.string(), refund_amount: Decimal, currency: z.string() }), 'Cancelled or requested'),
      ...commonErrors,
      409: UNDO_UNDER_WAY,
    },
  }),
  acceptCancel: createRoute({
    ...post('/residence/bookings/accept-cancel/', 'The host accepts a cancellation (sandbox: the partner stands in for the host)'),
    request: { body: jsonBody(ReservationIdBody) },
    responses: { 200: json(Reservation, 'The reservation after the host’s acceptance'), ...commonErrors },
  }),
  modify: createRoute({
    ...post('/residence/bookings/modify/', 'Change dates or guests of a paid stay (extension): re-priced, the difference charged or refunded'),
    request: {
      body: jsonBody(ModifyBody),
      headers: sandboxScenario('residenceModify'),
    },
    responses: {
      200: json(
        z.object({
          reservation_id: z.number().int(),
          previous_total: Decimal,
          new_total: Decimal,
          difference: Decimal,
          currency: z.string(),
          ledger_id: z.number().int().nullable(),
          reservation: Reservation,
        }),
        'Changed',
      ),
      ...commonErrors,
      402: commonErrors[400],
      409: UNDO_UNDER_WAY,
      502: errorResponse(
        'The host refused the change, or did not answer it and, asked, did not hold it (or could not be asked): it was undone, and the stay and the wallet are as they were; or, if the undo could not be written yet, it is owed (the message says so) and written as soon as it can be',
      ),
    },
  }),
};

export function residenceRoutes(deps: ApiDeps) {
  const resDeps = { ...workflowDeps(deps), holdTtlMs: deps.holds.residenceMs, autoAcceptCancelMs: deps.sandbox ? deps.holds.hostAcceptMs : null };
  const idOf = (q: Record<string, string>, name: string) => Number(q[name]);
  return partnerRouter()
    .openapi(routes.list, async (c) => {
      const q = c.req.valid('query');
      if ((q.check_in === undefined) !== (q.check_out === undefined))
        throw new DomainError('validation', 'check_out: give both check_in and check_out, or neither');
      if (q.check_in !== undefined && q.check_out! <= q.check_in) throw new DomainError('validation', 'check_out: must be after check_in');
      const found = await listProperties(deps.db, {
        city: q.city,
        country: q.country,
        type: q.type,
        guests: q.guests,
        check_in: q.check_in,
        check_out: q.check_out,
        page: parsePage(q.page),
      });
      const markup = await ownMarkup(partnerPricing(deps, c.get('partner')), 'residence', c.get('partner').id);
      return ok(
        c,
        renderPage(found, c.req.url, (p) => renderProperty(p, c.get('partner').currency, markup)),
      );
    })
    .openapi(routes.detail, async (c) => {
      const { property: p, unavailable } = await propertyDetail(deps.db, idOf(c.req.valid('query'), 'property_id'), new Date());
      const markup = await ownMarkup(partnerPricing(deps, c.get('partner')), 'residence', c.get('partner').id);
      return ok(c, {
        ...renderProperty(p, c.get('partner').currency, markup),
        description: p.description,
        amenities: p.amenities,
        house_rules: p.houseRules,
        unavailable,
      });
    })
    .openapi(routes.reserve, async (c) =>
      ok(c, renderReservation(await residence.reserve(resDeps, c.get('partner'), c.req.valid('json'), partnerPricing(deps, c.get('partner'))), new Date())),
    )
    .openapi(routes.time, async (c) => {
      const r = renderReservation(await residence.detail(deps.db, c.get('partner'), idOf(c.req.valid('query'), 'reservation_id')), new Date());
      return ok(c, { reservation_id: r.reservation_id, status: r.status, expires_at: r.expires_at, seconds_left: r.seconds_left });
    })
    .openapi(routes.reserveDetail, async (c) =>
      ok(c, renderReservation(await residence.detail(deps.db, c.get('partner'), idOf(c.req.valid('query'), 'reservation_id')), new Date())),
    )
    .openapi(routes.book, async (c) => {
      const { order, reservation } = await residence.book(deps.db, c.get('partner'), c.req.valid('json').reservation_id);
      return created(c, { ...renderTravelOrder(order), reservation_id: reservation.id, hold_expires_at: reservation.expiresAt.toISOString() });
    })
    .openapi(routes.cancel, async (c) => {
      const { reservation: r, kind, refundMinor } = await residence.cancel(resDeps, c.get('partner'), c.req.valid('json').reservation_id);
      return ok(c, {
        reservation_id: r.id,
        status: kind === 'released' ? 'cancelled' : 'cancel_requested',
        refund_amount: formatDecimal(refundMinor, r.currency),
        currency: r.currency,
      });
    })
    .openapi(routes.acceptCancel, async (c) => {
      if (!deps.sandbox)
        throw new DomainError(
          'validation',
          'reservation_id: the host accepts cancellations; in production an operator relays it (admin CLI: residence accept-cancel)',
        );
      const data = await residence.acceptCancel(
        resDeps,
        c.req.valid('json').reservation_id,
        c.get('partner').id,
        `sandbox host (partner ${c.get('partner').id})`,
      );
      return ok(c, renderReservation(data, new Date()));
    })
    .openapi(routes.modify, async (c) => {
      const b = c.req.valid('json');
      const scenario = scenarioOf(deps, c.req.valid('header'));
      const { change, reservation } = await residence.modify(resDeps, c.get('partner'), b.reservation_id, {
        checkIn: b.check_in,
        checkOut: b.check_out,
        guests: b.guests,
        ...(scenario ? { scenario } : {}),
      });
      const currency = change.currency;
      return ok(c, {
        reservation_id: reservation.reservation.id,
        previous_total: formatDecimal(change.previousTotalMinor, currency),
        new_total: formatDecimal(change.newTotalMinor, currency),
        difference: formatDecimal(change.differenceMinor, currency),
        currency,
        ledger_id: change.ledgerId,
        reservation: renderReservation(reservation, new Date()),
      });
    });
}
