import type { TestStack } from './stack';
import { ADMIN_TOKEN } from './stack';

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

type Fetcher = { request: (input: string, init?: RequestInit) => Response | Promise<Response> };

/** One request to an app, as a client would send it; JSON bodies get a JSON content type unless headers say otherwise. */
export async function call(app: Fetcher, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> {
  const res = await app.request(`http://engine.test${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

export interface PartnerCredentials {
  partner_id: number;
  api_key: string;
  api_secret: string;
  agency_key: string;
}

export function adminClient(stack: TestStack) {
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
  return {
    get: (path: string) => call(stack.admin, 'GET', path, auth),
    post: (path: string, body?: unknown) => call(stack.admin, 'POST', path, auth, body ?? {}),
    async createPartner(input: { name?: string; credit_limit?: string; topup?: string } = {}): Promise<PartnerCredentials> {
      const res = await call(stack.admin, 'POST', '/admin/partners', auth, { name: 'Test Agency', ...input });
      if (res.status !== 201) throw new Error(`partner create failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as PartnerCredentials;
    },
  };
}

/** Interface A as a partner calls it, with its key and secret. */
export function partnerClient(stack: TestStack, creds: Pick<PartnerCredentials, 'api_key' | 'api_secret'>) {
  const auth = { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret };
  return {
    get: (path: string) => call(stack.app, 'GET', path, auth),
    post: (path: string, body?: unknown, headers: Record<string, string> = {}) => call(stack.app, 'POST', path, { ...auth, ...headers }, body ?? {}),
    delete: (path: string) => call(stack.app, 'DELETE', path, auth),
    raw: (method: string, path: string, headers: Record<string, string>, body?: string) => call(stack.app, method, path, { ...auth, ...headers }, body),
    async wallet() {
      return (await call(stack.app, 'GET', '/api/partners/wallet/', auth)).body.data as { balance: string; available: string; credit_limit: string };
    },
    /** Puts one product in the basket and checks out; returns the pending product order. */
    async productOrder(opts: { product?: number; variant?: number; quantity?: number; payment_method?: string } = {}) {
      const add = await call(stack.app, 'POST', '/api/products/basket/items/', auth, {
        product: opts.product ?? 1,
        quantity: opts.quantity ?? 1,
        ...(opts.product === undefined ? { variant: opts.variant ?? 1 } : opts.variant !== undefined ? { variant: opts.variant } : {}),
      });
      if (add.status !== 201) throw new Error(`basket add failed: ${add.status} ${JSON.stringify(add.body)}`);
      const out = await call(stack.app, 'POST', '/api/products/checkout/', auth, { payment_method: opts.payment_method ?? 'PARTNER_CREDIT' });
      if (out.status !== 201) throw new Error(`checkout failed: ${out.status} ${JSON.stringify(out.body)}`);
      return out.body.data as { id: number; total_price_irt: string; status: string };
    },
  };
}

/** A partner with a funded wallet (amounts in currency units) and its Interface A client. */
export async function newPartner(stack: TestStack, credit_limit = '0', topup = '10000000') {
  const creds = await adminClient(stack).createPartner({ credit_limit, topup });
  return { creds, api: partnerClient(stack, creds) };
}
