import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request a receiver got: its Standard Webhooks headers, raw body, and whether the library verified it. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  verified: boolean;
  /** What the receiver answered (undefined: it never answered). */
  answered?: number;
}

export type Behaviour = (r: Received, nth: number) => number | 'hang' | Promise<number | 'hang'>;

/**
 * A partner's webhook receiver over real HTTP: every request is verified with the
 * third-party `standardwebhooks` library against the endpoint's secret (set once the
 * endpoint is registered), then answered as `behaviour` says (default 200).
 */
export async function startReceiver(behaviour: Behaviour = () => 200) {
  const received: Received[] = [];
  let secret: string | undefined;
  let answer = behaviour;
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      let verified = false;
      try {
        new Webhook(secret!).verify(body, headers);
        verified = true;
      } catch {
        verified = false;
      }
      const r: Received = { id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], signature: headers['webhook-signature'], body, verified };
      received.push(r);
      void Promise.resolve(answer(r, received.length)).then((status) => {
        if (status === 'hang') {
          hanging.add(res);
          return;
        }
        r.answered = status;
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : `refused with ${status}`);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    setSecret: (s: string) => (secret = s),
    behave: (b: Behaviour) => (answer = b),
    /** The events taken (answered 2xx), as parsed bodies, in arrival order. */
    accepted: () =>
      received
        .filter((r) => r.answered !== undefined && r.answered < 300)
        .map((r) => JSON.parse(r.body) as { id: number; type: string; order_id: number | null; data: any }),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
