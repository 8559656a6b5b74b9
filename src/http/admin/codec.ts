import { createRoute, z } from '@hono/zod-openapi';
import type { Context, Env, Hono, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { cors } from 'hono/cors';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { DomainError } from '../../domain/errors';
import { CODEC_ENDPOINT_PATH, PayloadDecryptionError } from '../../temporal/payload-codec';
import { adminOperations, adminRouter } from './router';
import { json, jsonBody } from './schemas';

/**
 * The codec endpoint: Temporal's codec server protocol on the admin API, so that Temporal Web
 * (`--ui-codec-endpoint`, the UI's TEMPORAL_CODEC_ENDPOINT) and the CLI (`--codec-endpoint`)
 * show operators the payloads the engine encrypts. `POST /admin/codec/decode` and
 * `/admin/codec/encode` take and answer `{"payloads": [{"metadata": {name: base64}, "data":
 * base64}]}`, behind the admin token like every /admin route.
 *
 * A browser cannot add the admin token to the UI's requests, so the token also rides in a
 * cookie the operator sets once through `/codec/session` (a form): HttpOnly, SameSite=Strict,
 * sent to /admin/codec only. Temporal Web sends it when its codec setting "Include
 * cross-origin credentials" is on; TEMPORAL_UI_ORIGIN is the one origin allowed to call
 * (CORS, preflight answered before the token is asked for).
 */
export const CODEC_PATH = CODEC_ENDPOINT_PATH;
export const CODEC_COOKIE = 'codec_token';
const SESSION_HOURS = 12;
/** The most payloads one request carries: the UI sends one event's (or one list's) at a time. */
const MAX_PAYLOADS = 1000;

const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64');
const CodecBody = z
  .object({
    payloads: z
      .array(
        z.object({
          metadata: z.record(z.string().max(200), base64).nullish(),
          data: base64.nullish(),
        }),
        { error: 'payloads: must be a list of payloads' },
      )
      .max(MAX_PAYLOADS),
  })
  .openapi('Payloads', { description: "Temporal's codec server protocol: each payload's metadata and data in base64" });
const Encoded = z.object({ payloads: z.array(z.object({ metadata: z.record(z.string(), z.string()), data: z.string() })) }).openapi('CodedPayloads');

type JsonPayload = { metadata?: Record<string, string> | null; data?: string | null };

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data ?? '', 'base64'),
});

const b64 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes?.buffer ?? new ArrayBuffer(0), bytes?.byteOffset, bytes?.byteLength).toString('base64');

const toJson = (p: Payload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
  data: b64(p.data),
});

/** The admin token a codec request presents in its cookie (see above); '' without one. */
export const codecCookieToken = (c: Context) => (c.req.path.startsWith(`${CODEC_PATH}/`) ? (getCookie(c, CODEC_COOKIE) ?? '') : '');

/**
 * CORS for the codec endpoint: the UI at `origin` may call it with its cookie. Registered before
 * the admin token check, so the browser's preflight (which carries no credentials) is answered.
 */
export function codecCors(origin: string | undefined): MiddlewareHandler {
  if (!origin) return (_c, next) => next();
  return cors({
    origin,
    allowMethods: ['POST', 'OPTIONS'],
    allowHeaders: ['Content-Type', 'X-Namespace', 'Authorization'],
    credentials: true,
    maxAge: 600,
  });
}

const SESSION_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Codec endpoint</title></head>
<body>
<h1>Decode payloads in Temporal Web</h1>
<p>Paste your admin token: this browser then sends it to the codec endpoint (${CODEC_PATH}) for ${SESSION_HOURS} hours.
In Temporal Web's codec settings, turn on "Include cross-origin credentials".</p>
<form method="post" action="/codec/session">
<label>Admin token <input type="password" name="token" autocomplete="off" required></label>
<button type="submit">Use it</button>
</form>
</body></html>`;

const { post } = adminOperations(['Codec']);
const codecRoute = <P extends 'decode' | 'encode'>(what: P) =>
  createRoute({
    ...post(
      `${CODEC_ENDPOINT_PATH}/${what}` as `/admin/codec/${P}`,
      what === 'decode' ? 'Decode payloads (for Temporal Web and the CLI)' : 'Encode payloads (for Temporal Web and the CLI)',
      'Temporal Web calls it from TEMPORAL_UI_ORIGIN with the `codec_token` cookie (GET /codec/session sets it) or an operator’s session.',
    ),
    request: { body: jsonBody(CodecBody) },
    responses: { 200: json(Encoded, what === 'decode' ? 'Decoded' : 'Encoded') },
  });

/** `/admin/codec/{decode,encode}`, mounted after the admin token check. */
export function codecRoutes(deps: { codec: PayloadCodec }) {
  return adminRouter()
    .openapi(codecRoute('decode'), async (c) => {
      try {
        return c.json({ payloads: (await deps.codec.decode(c.req.valid('json').payloads.map(fromJson))).map(toJson) }, 200);
      } catch (err) {
        if (err instanceof PayloadDecryptionError) throw new DomainError('validation', err.message);
        throw err;
      }
    })
    .openapi(codecRoute('encode'), async (c) => c.json({ payloads: (await deps.codec.encode(c.req.valid('json').payloads.map(fromJson))).map(toJson) }, 200));
}

/** `/codec/session`, where an operator's browser gets its cookie. `checkToken` says whether a token is an operator's (a named one, or the bootstrap token). */
export function codecSessionRoutes<E extends Env>(app: Hono<E>, deps: { checkToken: (token: string) => Promise<boolean> }) {
  app.get('/codec/session', (c) => c.html(SESSION_PAGE));
  app.post('/codec/session', async (c) => {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const token = typeof form.token === 'string' ? form.token.trim() : '';
    if (!token || !(await deps.checkToken(token))) return c.json({ error: 'missing or invalid admin token' }, 401);
    setCookie(c, CODEC_COOKIE, token, {
      path: CODEC_PATH,
      httpOnly: true,
      sameSite: 'Strict',
      secure: new URL(c.req.url).protocol === 'https:',
      maxAge: SESSION_HOURS * 3600,
    });
    return c.html(`<!doctype html><html lang="en"><body><p>This browser now decodes payloads in Temporal Web for ${SESSION_HOURS} hours.</p></body></html>`);
  });
}
