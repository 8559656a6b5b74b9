/**
 * The bedbank's price list: pure functions of the hotel, room, stay and guests. Every
 * factor is an integer percentage and the product is rounded once per room-night, so a
 * price never depends on floating-point order of operations.
 */
import type { Hotel, RoomType } from './inventory';
import { addDays, DAY_MS } from '../../../platform/calendar';
import { applyPercents } from '../percents';

export const BOARDS = ['RO', 'BB', 'HB'] as const;
export type Board = (typeof BOARDS)[number];

export interface Occupancy {
  adults: number;
  children_ages: number[];
}

/** The nights of a stay, as the dates they start on: check_in up to the day before check_out. */
export function stayNights(checkIn: string, checkOut: string): string[] {
  const from = Date.parse(`${checkIn}T00:00:00.000Z`);
  const to = Date.parse(`${checkOut}T00:00:00.000Z`);
  const nights: string[] = [];
  for (let t = from; t < to; t += DAY_MS) nights.push(new Date(t).toISOString().slice(0, 10));
  return nights;
}

export function fits(room: RoomType, occupancy: Occupancy): boolean {
  return occupancy.adults + occupancy.children_ages.length <= room.max_occupancy;
}

/** Weekend (Thu/Fri in Iran, Fri/Sat elsewhere) and season (Nowruz at home, summer abroad). */
export function datePercents(night: string, domestic: boolean): [weekend: number, season: number] {
  const date = new Date(`${night}T00:00:00.000Z`);
  const day = date.getUTCDay();
  const month = date.getUTCMonth() + 1;
  const weekend = domestic ? day === 4 || day === 5 : day === 5 || day === 6;
  const season = domestic ? (month === 3 || month === 4 ? 130 : 100) : month === 7 || month === 8 ? 125 : 100;
  return [weekend ? 120 : 100, season];
}

/** Foreigners pay 1.5x at Iranian hotels. */
export function nationalityPercent(domestic: boolean, nationality: string): number {
  return domestic && nationality !== 'IR' ? 150 : 100;
}

/** 1 adult 85%, 2 adults 100%, +35 per extra adult; children 0-1 free, 2-11 +20, 12-17 +35. */
export function occupancyPercent(occupancy: Occupancy): number {
  const a = occupancy.adults;
  let percent = a === 1 ? 85 : 100 + 35 * (a - 2);
  for (const age of occupancy.children_ages) percent += age <= 1 ? 0 : age <= 11 ? 20 : 35;
  return percent;
}

export function boardPercent(board: Board): number {
  return board === 'BB' ? 110 : board === 'HB' ? 125 : 100;
}

export function refundabilityPercent(refundable: boolean): number {
  return refundable ? 100 : 88;
}

export interface QuoteInput {
  hotel: Hotel;
  room: RoomType;
  board: Board;
  refundable: boolean;
  check_in: string;
  check_out: string;
  nationality: string;
  rooms: Occupancy[];
}

export interface Quote {
  total_price_minor: number;
  /** All rooms' price for the first night: the refundable rate's late-cancellation penalty. */
  first_night_minor: number;
}

export function quote(q: QuoteInput): Quote {
  const nights = stayNights(q.check_in, q.check_out);
  const fixed = [nationalityPercent(q.hotel.domestic, q.nationality), boardPercent(q.board), refundabilityPercent(q.refundable)];
  let total = 0;
  let firstNight = 0;
  nights.forEach((night, i) => {
    const [weekend, season] = datePercents(night, q.hotel.domestic);
    for (const occupancy of q.rooms) {
      const price = applyPercents(q.room.base_price_minor, [weekend, season, ...fixed, occupancyPercent(occupancy)]);
      total += price;
      if (i === 0) firstNight += price;
    }
  });
  return { total_price_minor: total, first_night_minor: firstNight };
}

/** The price_changed sandbox scenario: the supplier now asks 7% more. */
export function changedPrice(minor: number): number {
  return Math.floor((minor * 107 + 50) / 100);
}

export interface PenaltyStep {
  from: string;
  penalty_minor: number;
}

/**
 * Refundable: free until 12:00Z three days before check-in, then the first night, then
 * everything from 12:00Z on the check-in day. Non-refundable: everything from `now`.
 */
export function cancellationPolicy(refundable: boolean, checkIn: string, totalMinor: number, firstNightMinor: number, now: number): PenaltyStep[] {
  if (!refundable) return [{ from: new Date(now).toISOString(), penalty_minor: totalMinor }];
  const steps: PenaltyStep[] = [
    { from: `${addDays(checkIn, -3)}T12:00:00.000Z`, penalty_minor: firstNightMinor },
    { from: `${checkIn}T12:00:00.000Z`, penalty_minor: totalMinor },
  ];
  return steps.sort((a, b) => a.from.localeCompare(b.from));
}
