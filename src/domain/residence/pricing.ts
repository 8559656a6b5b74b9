import { summedPrice, type Markup, type SellPrice } from '../money/markup';

/** Nights between two YYYY-MM-DD dates, each as its own YYYY-MM-DD. */
export function nightsOf(checkIn: string, checkOut: string): string[] {
  const nights: string[] = [];
  for (let t = Date.parse(`${checkIn}T00:00:00Z`); t < Date.parse(`${checkOut}T00:00:00Z`); t += 86_400_000) {
    nights.push(new Date(t).toISOString().slice(0, 10));
  }
  return nights;
}

/** Thursday and Friday nights are the Iranian weekend. */
const isWeekendNight = (night: string) => [4, 5].includes(new Date(`${night}T00:00:00Z`).getUTCDay());

export interface StayPrice {
  nights: number;
  weekendNights: number;
  totalMinor: number;
}

export function priceStay(p: { nightlyPrice: number; weekendPrice: number; cleaningFee: number }, checkIn: string, checkOut: string): StayPrice {
  const nights = nightsOf(checkIn, checkOut);
  const weekend = nights.filter(isWeekendNight).length;
  return {
    nights: nights.length,
    weekendNights: weekend,
    totalMinor: (nights.length - weekend) * p.nightlyPrice + weekend * p.weekendPrice + p.cleaningFee,
  };
}

type StayRates = { nightlyPrice: number; weekendPrice: number; cleaningFee: number };

/** A property's rates as a partner sees them: each night and the cleaning fee with the partner's markup. */
export const sellRates = (p: StayRates, markup: Markup): StayRates => ({
  nightlyPrice: markup.sell(p.nightlyPrice),
  weekendPrice: markup.sell(p.weekendPrice),
  cleaningFee: markup.sell(p.cleaningFee),
});

/** A stay priced for a partner: its net (the property's rates, in the wallet's currency), margin and rule. */
export function sellStay(p: StayRates, markup: Markup, checkIn: string, checkOut: string): SellPrice {
  const net = { nightlyPrice: markup.net(p.nightlyPrice), weekendPrice: markup.net(p.weekendPrice), cleaningFee: markup.net(p.cleaningFee) };
  const netMinor = priceStay(net, checkIn, checkOut).totalMinor;
  const sellMinor = priceStay(sellRates(p, markup), checkIn, checkOut).totalMinor;
  const operator = priceStay(
    { nightlyPrice: markup.operatorSell(p.nightlyPrice), weekendPrice: markup.operatorSell(p.weekendPrice), cleaningFee: markup.operatorSell(p.cleaningFee) },
    checkIn,
    checkOut,
  ).totalMinor;
  return summedPrice(markup, { net: netMinor, operator, sell: sellMinor });
}

export type CancellationPolicy = 'flexible' | 'moderate' | 'strict';

/**
 * Share of the price refunded when the guest cancels at `now`: flexible — everything
 * until a day before check-in; moderate — until five days before; strict — half until
 * fourteen days before; otherwise nothing.
 */
export function refundPercent(policy: CancellationPolicy, checkIn: string, now: Date): number {
  const daysBefore = (Date.parse(`${checkIn}T12:00:00Z`) - now.getTime()) / 86_400_000;
  if (policy === 'flexible') return daysBefore >= 1 ? 100 : 0;
  if (policy === 'moderate') return daysBefore >= 5 ? 100 : 0;
  return daysBefore >= 14 ? 50 : 0;
}
