import autocannon from 'autocannon';
import { admin, partnerHeaders, type Partner } from '/work/main/scripts/bench/common';
const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
async function main() {
  const p = await admin<Partner>('POST', '/admin/partners', { name: `hit-${Date.now()}`, topup: '1000' });
  await admin('POST', `/admin/partners/${p.partner_id}/rate-limit`, { per_minute: 100000 });
  const h = { ...partnerHeaders(p), 'accept-encoding': 'br, gzip' };
  const big = JSON.stringify({ city_id: 1, check_in: day(30), check_out: day(32), nationality_id: 'IR', rooms: [{ adult_count: 2, child_count: 0, child_ages: [] }] });
  const small = JSON.stringify({ hotel_id: 110, check_in: day(30), check_out: day(32), nationality_id: 'IR', rooms: [{ adult_count: 2, child_count: 0, child_ages: [] }] });
  for (const [name, method, url, body] of [
    ['wallet', 'GET', 'http://127.0.0.1:18080/api/partners/wallet/', undefined],
    ['hotel_small', 'POST', 'http://127.0.0.1:18080/api/hotel/search_hotels/', small],
    ['hotel_city', 'POST', 'http://127.0.0.1:18080/api/hotel/search_hotels/', big],
    ['wallet', 'GET', 'http://127.0.0.1:18080/api/partners/wallet/', undefined],
  ] as const) {
    await autocannon({ url, method, headers: h, body, connections: 20, duration: 2 });
    const t0 = performance.now();
    const run = await autocannon({ url, method, headers: h, body, connections: 20, duration: Number(process.env.D ?? 5) });
    console.log(JSON.stringify({ name, rps: run.requests.average, p50: run.latency.p50, err: run.errors + run.non2xx, bytes: Math.round(run.throughput.average / run.requests.average), from_ms: Math.round(t0) }));
  }
}
main();
