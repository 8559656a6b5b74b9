/** Calendar days as the engine (and its simulator) speak them: 'YYYY-MM-DD', in UTC. */
export const DAY_MS = 86_400_000;

/** Today as the UTC calendar day: "today" everywhere in the engine. */
export const todayUtc = (now: Date = new Date()) => now.toISOString().slice(0, 10);

export const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** YYYY-MM-DD naming a day that exists (no 2027-02-30, no month 00). */
export function isCalendarDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const t = Date.parse(`${s}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === s;
}
