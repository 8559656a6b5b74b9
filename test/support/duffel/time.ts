/** Local wall-clock times as Duffel writes them: `2026-12-01T07:35:00`, no offset, in the airport's time zone. */

function localParts(utcMs: number, timeZone: string): Record<string, number> {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(utcMs));
  return Object.fromEntries(parts.filter((p) => p.type !== 'literal').map((p) => [p.type, Number(p.value)]));
}

/** How far the zone's clock is ahead of UTC at that instant, in milliseconds. */
function offsetMs(utcMs: number, timeZone: string): number {
  const p = localParts(utcMs, timeZone);
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - Math.floor(utcMs / 1000) * 1000;
}

/** The UTC instant of a local date and time in a zone. */
export function utcOfLocal(date: string, minutesIntoDay: number, timeZone: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const guess = Date.UTC(y, m - 1, d, 0, minutesIntoDay);
  const first = guess - offsetMs(guess, timeZone);
  return guess - offsetMs(first, timeZone);
}

export function localIso(utcMs: number, timeZone: string): string {
  const p = localParts(utcMs, timeZone);
  const two = (n: number | undefined) => String(n).padStart(2, '0');
  return `${p.year}-${two(p.month)}-${two(p.day)}T${two(p.hour)}:${two(p.minute)}:${two(p.second)}`;
}

/** ISO 8601 duration as Duffel gives it: `PT02H26M`, days as `P1DT02H26M`. */
export function isoDuration(minutes: number): string {
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  return `P${days > 0 ? `${days}D` : ''}T${two(hours)}H${two(mins)}M`;
}

/** Today's date in UTC, `YYYY-MM-DD`. */
export const isoDate = (at: Date): string => at.toISOString().slice(0, 10);
