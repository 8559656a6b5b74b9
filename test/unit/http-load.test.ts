import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runLoad, type LoadAnswer } from '../../scripts/bench/http-load';

/** A server answering each request after `delayMs`: 200 with a body of `bytes`, or 503 for a path under /busy, or never for /hang. */
async function server(delayMs: number, bytes: number) {
  const seen: string[] = [];
  const srv = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    if (req.url?.startsWith('/hang')) return;
    setTimeout(() => {
      if (req.url?.startsWith('/busy')) {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"busy"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-search-cache': 'fresh' }).end(Buffer.alloc(bytes, 7));
    }, delayMs);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise((r) => (srv.closeAllConnections(), srv.close(r))) };
}

describe("bench:search's load", () => {
  it('keeps one request in flight per connection without a rate, counting every byte of each answer', async () => {
    const s = await server(20, 50_000);
    const answers: Array<{ meta: number; answer: LoadAnswer }> = [];
    let n = 0;
    let inFlight = 0;
    let most = 0;
    await runLoad({
      url: s.url,
      connections: 4,
      seconds: 0.5,
      rate: 0,
      timeoutMs: 5000,
      next: () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        return { request: { method: 'POST', path: `/search/${n}`, headers: { 'content-type': 'application/json' }, body: '{"city":1}' }, meta: n++ };
      },
      onAnswer: (meta, answer) => {
        inFlight -= 1;
        answers.push({ meta, answer });
      },
    });
    await s.close();
    expect(most).toBe(4);
    expect(answers).toHaveLength(n);
    // 4 connections, 20 ms an answer, half a second: never more than the time allows.
    expect(n).toBeGreaterThanOrEqual(8);
    expect(n).toBeLessThanOrEqual(4 * Math.ceil(500 / 20) + 4);
    for (const { answer } of answers) {
      expect(answer.status).toBe(200);
      expect(answer.headers['x-search-cache']).toBe('fresh');
      expect(answer.bytes).toBeGreaterThan(50_000);
      expect(answer.bytes).toBeLessThan(50_300);
      expect(answer.ms).toBeGreaterThanOrEqual(19);
    }
    expect(s.seen[0]).toBe('POST /search/0');
  });

  it('sends at the rate asked whatever the latency, and names what failed', async () => {
    const s = await server(150, 10);
    const statuses: Array<LoadAnswer['status']> = [];
    let samples = '';
    let n = 0;
    const t0 = performance.now();
    await runLoad({
      url: s.url,
      connections: 100,
      seconds: 1,
      rate: 60,
      // Far above the 150 ms answers, so a pause of the test's own process (a collection in a
      // worker that has run many suites) cannot turn an answer into a timeout.
      timeoutMs: 1500,
      next: () => ({ request: { method: 'GET', path: n % 10 === 0 ? `/hang/${n}` : n % 2 ? `/busy/${n}` : `/ok/${n}`, headers: {} }, meta: n++ }),
      onAnswer: (_meta, answer) => {
        statuses.push(answer.status);
        if (answer.sample) samples = answer.sample;
      },
    });
    const took = performance.now() - t0;
    await s.close();
    // 60 a second for a second, each answered after 150 ms: closed, the connections would have sent far fewer or far more.
    expect(n).toBeGreaterThanOrEqual(50);
    expect(n).toBeLessThanOrEqual(60);
    // The hung requests end at their timeout, not never (a second of slack for a busy machine).
    expect(took).toBeLessThan(1000 + 1500 + 1000);
    const sent = Array.from({ length: n }, (_, k) => k);
    expect(statuses.filter((x) => x === 'timeouts').length).toBe(sent.filter((k) => k % 10 === 0).length);
    expect(statuses.filter((x) => x === 503).length).toBe(sent.filter((k) => k % 2 === 1).length);
    expect(statuses.filter((x) => x === 200).length).toBe(sent.filter((k) => k % 10 !== 0 && k % 2 === 0).length);
    expect(samples).toBe('{"error":"busy"}');
  });
});
