/**
 * npm run bench:read -- [--duration SECONDS] [--connections N]
 *
 * The read path of a running engine under load (autocannon): wallet, a ledger page, the
 * product list and a hotel search. Prints JSON per endpoint.
 */
import autocannon from 'autocannon';
import { admin, API, args, partnerHeaders, round, type Partner } from './common';

const opts = args({ duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '10' } });

async function load(title: string, url: string, partner: Partner, body?: unknown) {
  const result = await autocannon({
    url: `${API}${url}`,
    method: body === undefined ? 'GET' : 'POST',
    headers: partnerHeaders(partner),
    body: body === undefined ? undefined : JSON.stringify(body),
    connections: Number(opts.connections),
    duration: Number(opts.duration),
  });
  return {
    [title]: {
      reqs_per_s: round(result.requests.average),
      p50_ms: result.latency.p50,
      p95_ms: (result.latency as unknown as Record<string, number>).p97_5 ?? result.latency.p99,
      p99_ms: result.latency.p99,
      errors: result.errors + result.non2xx,
    },
  };
}

async function main() {
  const partner = await admin<Partner>('POST', '/admin/partners', { name: 'bench-read', topup: '1000000' });
  for (let i = 0; i < 20; i++) await admin('POST', `/admin/partners/${partner.partner_id}/topup`, { amount: '1000' });
  const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
  const results = {
    ...(await load('wallet', '/api/partners/wallet/', partner)),
    ...(await load('ledger_page', '/api/partners/ledger/', partner)),
    ...(await load('product_list', '/api/products/products/', partner)),
    ...(await load('hotel_search', '/api/hotel/search_hotels/', partner, {
      city_id: 1,
      check_in: day(30),
      check_out: day(32),
      nationality_id: 'IR',
      rooms: [{ adult_count: 2 }],
    })),
  };
  console.log(JSON.stringify({ connections: Number(opts.connections), duration_s: Number(opts.duration), endpoints: results }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
