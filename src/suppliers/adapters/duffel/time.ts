/** The offset of `timeZone` from UTC at instant `t`, in ms. */
function offsetMs(t: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(t));
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second')) - Math.floor(t / 1000) * 1000;
}

/**
 * Duffel states departure and arrival in the airport's local time without an offset
 * ("2026-12-01T10:30:00"); the engine keeps instants. A time that carries its offset, or an
 * airport without a known time zone, is taken as it is (UTC when it has no offset).
 */
export function localToUtc(local: string, timeZone: string | null | undefined): string {
  if (/(Z|[+-]\d\d:?\d\d)$/.test(local)) return new Date(local).toISOString();
  const asUtc = Date.parse(`${local}Z`);
  if (Number.isNaN(asUtc)) return local;
  if (!timeZone) return new Date(asUtc).toISOString();
  try {
    let t = asUtc - offsetMs(asUtc, timeZone);
    // Across a change of offset the first guess is an hour off: one more step settles it.
    t = asUtc - offsetMs(t, timeZone);
    return new Date(t).toISOString();
  } catch {
    return new Date(asUtc).toISOString();
  }
}
