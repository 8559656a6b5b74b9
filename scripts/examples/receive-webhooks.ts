/**
 * Receiving webhooks: register an endpoint with the typed client, then verify each delivery
 * with the Standard Webhooks library and act on each event once. Run against an engine
 * that lets endpoints on 127.0.0.1 through (`WEBHOOK_ALLOWED_PRIVATE_HOSTS=127.0.0.1 npm start`;
 * production does not):
 *
 *   API_KEY=… API_SECRET=… node --import tsx scripts/examples/receive-webhooks.ts [http://127.0.0.1:8080] [port]
 *
 * `npm test` runs it (test/integration/client-examples.test.ts).
 */
import http from 'node:http';
import { Webhook } from 'standardwebhooks';
import { partnerClient, type EventType, type PartnerClient, type PartnerEvent } from '../../src/client';

/** The receiver: a bad signature or an old timestamp is a 400; a repeated webhook-id (a redelivery) is acknowledged, not acted on again. */
export function webhookReceiver(secret: string, onEvent: (event: PartnerEvent) => void | Promise<void>) {
  const wh = new Webhook(secret);
  const seen = new Set<string>(); // in production: a table with a unique key on the webhook-id
  return http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let event: PartnerEvent;
    try {
      event = wh.verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>) as PartnerEvent;
    } catch {
      return res.writeHead(400).end();
    }
    const id = String(req.headers['webhook-id']);
    if (!seen.has(id)) await onEvent(event);
    seen.add(id);
    res.writeHead(204).end();
  });
}

/** Registers `url` for some event types; the secret in the answer is shown only this once. */
export async function registerEndpoint(api: PartnerClient, url: string, eventTypes: EventType[] = []) {
  const answer = await api.POST('/partners/webhooks/', { body: { url, event_types: eventTypes } });
  if (!answer.data) throw new Error(`register: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  return answer.data.data;
}

if (require.main === module) {
  const baseUrl = process.argv[2] ?? 'http://127.0.0.1:8080';
  const port = Number(process.argv[3] ?? 9090);
  const api = partnerClient(baseUrl, { apiKey: process.env.API_KEY ?? '', apiSecret: process.env.API_SECRET ?? '' });
  registerEndpoint(api, `http://127.0.0.1:${port}/`)
    .then((endpoint) => {
      console.log(`endpoint ${endpoint.id} registered; listening on ${port}`);
      webhookReceiver(endpoint.secret, (e) => console.log(JSON.stringify(e))).listen(port, '127.0.0.1');
    })
    .catch((err: Error) => {
      console.error(err.message);
      process.exit(1);
    });
}
