import type { BookedService, ChosenService, FlightAfterSale, ServiceForSale } from '../../suppliers/flight-after-sale';
import { openCode } from '../offer-codes';
import type { FlightOrder } from '../../suppliers/flights';
import type { Money } from '../../suppliers/money';
import { validation } from '../errors';
import type { Markup } from '../money/markup';
import { markupFor } from '../money/markup-rules';
import { pricerFor, pricingIn, type Pricer } from '../money/pricing';
import { supplierRead } from '../supplier-reads';
import { changeableOrder, insertChange, knownChange, type ChangeDeps, type FlightChangeRow } from './changes';

/** The bags an order has booked: what a repeated addition is measured against. */
export const bagsOn = (order: Pick<FlightOrder, 'services'>): number =>
  (order.services ?? []).filter((s: BookedService) => s.type === 'baggage').reduce((n, s) => n + s.quantity, 0);

/** A bag for sale on an order, at the partner's price for one. */
export interface PricedBag {
  service: ServiceForSale;
  priceMinor: number;
  currency: string;
}

/** A flight's extras priced as flights are: the airline's price in the wallet's currency, with the flights markup. */
async function extrasPricing(
  deps: Pick<ChangeDeps, 'db' | 'pricing'>,
  partnerId: number,
  currency: string,
  supplier: string,
  amounts: Money[],
  now: Date,
): Promise<{ pricer: Pricer; markup: Markup }> {
  const pricer = await pricerFor(pricingIn(deps.pricing, currency), amounts, now);
  const markup = await markupFor({ db: deps.db, currency }, { service: 'flights', partnerId, supplier, now });
  return { pricer, markup };
}

/** GET /api/flights/air_services/: the bags sold with a fare (chosen in air_booking `services`), each at the partner's price. */
export async function offerBags(
  deps: { db: ChangeDeps['db']; pricing: ChangeDeps['pricing']; afterSale: FlightAfterSale; supplier: string },
  partnerId: number,
  fareSourceCode: string,
  now: Date,
): Promise<PricedBag[]> {
  const { id } = openCode(deps.pricing, fareSourceCode, 'fare_source_code');
  const services = await supplierRead('fare_source_code', () => deps.afterSale.offerServices(id));
  const { pricer, markup } = await extrasPricing(
    deps,
    partnerId,
    deps.pricing.currency,
    deps.supplier,
    services.map((s) => s.price),
    now,
  );
  return services.map((service) => ({ service, priceMinor: markup.price(pricer.minor(service.price)).sellMinor, currency: deps.pricing.currency }));
}

/** POST /api/flights/air_order_available_services/: the bags a ticketed order may still add, each at the partner's price. */
export async function availableBags(deps: ChangeDeps, partnerId: number, orderId: number, now: Date): Promise<{ orderId: number; bags: PricedBag[] }> {
  const { order, booking, airlineOrderId } = await changeableOrder(deps.db, partnerId, orderId, now);
  const services = await supplierRead('order_id', () => deps.afterSaleOf(booking.supplier).orderServices(airlineOrderId));
  const { pricer, markup } = await extrasPricing(
    deps,
    order.partnerId,
    order.currency,
    booking.supplier,
    services.map((s) => s.price),
    now,
  );
  return {
    orderId: order.id,
    bags: services.map((service) => ({ service, priceMinor: markup.price(pricer.minor(service.price)).sellMinor, currency: order.currency })),
  };
}

const sameServices = (a: ChosenService[], b: ChosenService[]) =>
  a.length === b.length && a.every((s, i) => s.service_id === b[i]?.service_id && s.quantity === b[i]?.quantity);

/**
 * POST /api/flights/air_order_services/: the bags the partner chose, recorded at today's
 * price (what the airline asks for them, priced as flights are) to be added. The same key
 * with the same bags is the same addition; with others, a conflict.
 */
export async function recordBags(
  deps: ChangeDeps,
  partnerId: number,
  input: { order_id: number; services: ChosenService[]; idempotency_key: string },
  now: Date,
): Promise<FlightChangeRow> {
  const known = await knownChange(deps.db, partnerId, input.idempotency_key, (k) => k.orderId === input.order_id && sameServices(k.services, input.services));
  if (known) return known;
  const { order, booking, airlineOrderId } = await changeableOrder(deps.db, partnerId, input.order_id, now);
  const airline = deps.afterSaleOf(booking.supplier);
  const forSale = await supplierRead('order_id', () => airline.orderServices(airlineOrderId));
  const chosen = input.services.map((c, i) => {
    const s = forSale.find((f) => f.service_id === c.service_id);
    if (!s) throw validation(`services.${i}.service_id`, `${c.service_id} is not for sale on order ${order.id}; see air_order_available_services`);
    if (c.quantity > s.max_quantity) throw validation(`services.${i}.quantity`, `at most ${s.max_quantity} of ${c.service_id}`);
    return { ...s.price, amount_minor: s.price.amount_minor * c.quantity };
  });
  if (new Set(chosen.map((m) => m.currency)).size !== 1)
    throw validation('services', 'the airline prices these bags in more than one currency; add them one by one');
  const total: Money = { currency: chosen[0]!.currency, amount_minor: chosen.reduce((n, m) => n + m.amount_minor, 0) };
  const { pricer, markup } = await extrasPricing(deps, order.partnerId, order.currency, booking.supplier, [total], now);
  const price = markup.price(pricer.minor(total));
  const before = await supplierRead('order_id', () => deps.supplierOf(booking.supplier).order(airlineOrderId));
  return insertChange(deps.db, {
    kind: 'services',
    partnerId,
    orderId: order.id,
    idempotencyKey: input.idempotency_key,
    supplier: booking.supplier,
    supplierAmount: total.amount_minor,
    supplierCurrency: total.currency,
    netMinor: price.netMinor,
    penaltyMinor: 0,
    feeMinor: price.marginMinor,
    agencyFeeMinor: price.agencyMarginMinor,
    currency: order.currency,
    pricingRuleId: price.ruleId,
    services: input.services,
    bagsBefore: bagsOn(before),
  });
}
