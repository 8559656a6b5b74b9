import { createRoute, z } from '@hono/zod-openapi';
import { runChange } from '../../domain/flights/change-service';
import { availableBags, offerBags, recordBags, type PricedBag } from '../../domain/flights/order-services';
import { seatMaps } from '../../domain/flights/seats';
import { formatDecimal } from '../../domain/money/money';
import { mapSeatPrices } from '../../suppliers/flight-after-sale';
import { partnerPricing, workflowDeps, type ApiDeps } from '../deps';
import { bodyId, opaque } from '../vocabulary';
import { sandboxScenario, scenarioOf } from '../sandbox-scenario';
import { changeAnswer, FlightChange } from './flight-changes.routes';
import { ok, partnerRouter } from './router';
import { commonErrors, Decimal, errorResponse, json, jsonBody, partnerOperations } from './schemas';

const { get, post } = partnerOperations(['Flights']);

const Seat = z.object({
  designator: z.string().openapi({ example: '14C' }),
  disclosures: z.array(z.string()),
  prices: z
    .array(z.object({ service_id: z.string(), traveler_index: z.number().int(), price: Decimal }))
    .openapi({ description: 'For sale to each traveller (by their place in air_booking) at this price; empty: taken or not for sale' }),
});

const SeatMaps = z.object({
  currency: z.string(),
  seat_maps: z.array(
    z.object({
      leg_index: z.number().int(),
      segment_index: z.number().int(),
      cabins: z.array(z.object({ cabin: z.string(), rows: z.array(z.object({ seats: z.array(Seat) })) })),
    }),
  ),
});

const Bag = z.object({
  service_id: z.string(),
  price: Decimal.openapi({ description: 'For one' }),
  currency: z.string(),
  max_quantity: z.number().int(),
  traveler_indexes: z.array(z.number().int()),
  segments: z.array(z.tuple([z.number().int(), z.number().int()])).openapi({ description: '[leg_index, segment_index] pairs it covers' }),
  bag: z.object({ kind: z.enum(['checked', 'carry_on']), max_weight_kg: z.number().nullable() }),
});

const Chosen = z
  .array(z.object({ service_id: opaque(200), quantity: z.number().int().min(1).max(9) }))
  .min(1)
  .max(20);

const routes = {
  seatMap: createRoute({
    ...get('/flights/seat_map/', "A fare's seats, priced in the wallet currency (extension)"),
    description:
      "Each segment's seat map for a fare_source_code. Choose seats when booking (air_booking `services`): a seat is booked with the flight only, and a booked seat cannot be given back.",
    request: { query: z.object({ fare_source_code: opaque(4000) }) },
    responses: { 200: json(SeatMaps, 'Seat maps'), ...commonErrors },
  }),
  offerBags: createRoute({
    ...get('/flights/air_services/', 'The bags sold with a fare, priced in the wallet currency (extension)'),
    description: 'Choose them when booking (air_booking `services`), or add bags once the flight is ticketed (air_order_services).',
    request: { query: z.object({ fare_source_code: opaque(4000) }) },
    responses: { 200: json(z.object({ services: z.array(Bag) }), 'Bags for sale'), ...commonErrors },
  }),
  bags: createRoute({
    ...post('/flights/air_order_available_services/', 'The bags a ticketed order may still add (extension)'),
    request: { body: jsonBody(z.object({ order_id: bodyId() })) },
    responses: { 200: json(z.object({ order_id: z.number().int(), services: z.array(Bag) }), 'Bags for sale'), ...commonErrors },
  }),
  addBags: createRoute({
    ...post('/flights/air_order_services/', 'Add bags to a ticketed order, paid from the wallet (extension)'),
    request: {
      body: jsonBody(
        z
          .object({
            order_id: bodyId(),
            services: Chosen,
            idempotency_key: opaque(128).openapi({ description: 'Unique per addition: a retry with the same key never charges twice', example: 'bags-7f3c2a' }),
          })
          .openapi('FlightOrderServices'),
      ),
      headers: sandboxScenario('flightServices'),
    },
    responses: {
      200: json(FlightChange, 'Added: the order lists its new bags'),
      202: json(FlightChange, 'Still adding with the airline'),
      ...commonErrors,
      409: errorResponse('The idempotency_key was used for something else, or the order has a change under way'),
      502: errorResponse('The airline did not add the bags; any debit was credited back'),
    },
  }),
};

const renderBag = ({ service, priceMinor, currency }: PricedBag): z.infer<typeof Bag> => ({
  service_id: service.service_id,
  price: formatDecimal(priceMinor, currency),
  currency,
  max_quantity: service.max_quantity,
  traveler_indexes: service.traveler_indexes,
  segments: service.segments,
  bag: service.bag,
});

export function flightExtraRoutes(deps: ApiDeps) {
  const changeDeps = () => ({ ...workflowDeps(deps), afterSaleOf: deps.flightAfterSaleOf, supplierOf: deps.flightSupplierOf, pricing: deps.pricing });
  return partnerRouter()
    .openapi(routes.seatMap, async (c) => {
      const partner = c.get('partner');
      const pricing = partnerPricing(deps, partner);
      const found = await seatMaps(
        { supplier: deps.flightSupplier, afterSale: deps.flightAfterSaleOf(deps.flightSupplier.name), pricing },
        partner.id,
        c.req.valid('query').fare_source_code,
        new Date(),
      );
      return ok(c, {
        currency: found.currency,
        seat_maps: found.maps.map((m) =>
          mapSeatPrices(m, (p) => ({ service_id: p.service_id, traveler_index: p.traveler_index, price: formatDecimal(p.price_minor, found.currency) })),
        ),
      });
    })
    .openapi(routes.offerBags, async (c) => {
      const partner = c.get('partner');
      const bags = await offerBags(
        {
          db: deps.db,
          pricing: partnerPricing(deps, partner),
          afterSale: deps.flightAfterSaleOf(deps.flightSupplier.name),
          supplier: deps.flightSupplier.name,
        },
        partner.id,
        c.req.valid('query').fare_source_code,
        new Date(),
      );
      return ok(c, { services: bags.map(renderBag) });
    })
    .openapi(routes.bags, async (c) => {
      const found = await availableBags(changeDeps(), c.get('partner').id, c.req.valid('json').order_id, new Date());
      return ok(c, { order_id: found.orderId, services: found.bags.map(renderBag) });
    })
    .openapi(routes.addBags, async (c) => {
      const d = changeDeps();
      const out = await runChange(d, await recordBags(d, c.get('partner').id, c.req.valid('json'), new Date()), scenarioOf(deps, c.req.valid('header')));
      return changeAnswer(c, out);
    });
}
