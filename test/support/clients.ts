import { addOperator } from '../../src/domain/operator-tokens';
import { agencyClient, partnerClient as typedPartnerClient, type AgencyClient, type PartnerClient } from '../../src/client';
import type { components } from '../../src/client/partner-api';
import type { TestStack } from './stack';
import { ADMIN_TOKEN } from './stack';

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

type Fetcher = { request: (input: string, init?: RequestInit, env?: object) => Response | Promise<Response> };

/**
 * One request to an app, as a client would send it; JSON bodies get a JSON content type unless
 * headers say otherwise. `env`: the bindings the server gives the app (the socket's peer).
 */
export async function call(app: Fetcher, method: string, path: string, headers: Record<string, string>, body?: unknown, env?: object): Promise<Reply> {
  const init = {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  };
  const res = await app.request(`http://engine.test${path}`, init, env);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** The typed client's transport: the stack's app answers in process, no socket. */
const inProcess = (stack: TestStack) => ({ fetch: async (req: Request) => stack.app.fetch(req) });
const BASE_URL = 'http://engine.test';

/** Interface A through the typed client (src/client), with the partner's key and secret. */
export function typedPartner(stack: TestStack, creds: Pick<PartnerCredentials, 'api_key' | 'api_secret'>): PartnerClient {
  return typedPartnerClient(BASE_URL, { apiKey: creds.api_key, apiSecret: creds.api_secret }, inProcess(stack));
}

/** Interface B through the typed client (src/client), with the partner's agency key. */
export function typedAgency(stack: TestStack, creds: Pick<PartnerCredentials, 'agency_key'>): AgencyClient {
  return agencyClient(BASE_URL, creds.agency_key, inProcess(stack));
}

/** The answer's data (the body of a 2xx), or an error naming the call, its status and what the engine said. */
export function dataOf<T>(what: string, answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data === undefined) throw new Error(`${what}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  return answer.data;
}

type PayAnswer = components['schemas']['PayResponse'] | components['schemas']['PayAccepted'];
/** The data of a 200 pay answer (the payment settled within the wait); undefined for a 202 or an error. */
export const settled = (res: { data?: { data: PayAnswer } }) => (res.data && 'ledger_id' in res.data.data ? res.data.data : undefined);
/** The data of a 202 pay answer (the payment still running); undefined for a 200 or an error. */
export const processing = (res: { data?: { data: PayAnswer } }) => (res.data && 'payment_id' in res.data.data ? res.data.data : undefined);

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

/**
 * Interface A as a partner calls it, with its key and secret, in raw requests: for what the
 * typed client cannot send (malformed input, unknown headers). `wallet` and `productOrder`
 * go through the typed client.
 */
export function partnerClient(stack: TestStack, creds: Pick<PartnerCredentials, 'api_key' | 'api_secret'>) {
  const auth = { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret };
  const typed = typedPartner(stack, creds);
  return {
    get: (path: string) => call(stack.app, 'GET', path, auth),
    post: (path: string, body?: unknown, headers: Record<string, string> = {}) => call(stack.app, 'POST', path, { ...auth, ...headers }, body ?? {}),
    delete: (path: string) => call(stack.app, 'DELETE', path, auth),
    raw: (method: string, path: string, headers: Record<string, string>, body?: string) => call(stack.app, method, path, { ...auth, ...headers }, body),
    async wallet() {
      return dataOf('wallet', await typed.GET('/partners/wallet/')).data;
    },
    /** Puts one product in the basket and checks out; returns the pending product order. */
    async productOrder(opts: { product?: number; variant?: number; quantity?: number; payment_method?: 'PARTNER_CREDIT' | 'GATEWAY' } = {}) {
      dataOf(
        'basket add',
        await typed.POST('/products/basket/items/', {
          body: {
            product: opts.product ?? 1,
            quantity: opts.quantity ?? 1,
            ...(opts.product === undefined ? { variant: opts.variant ?? 1 } : opts.variant !== undefined ? { variant: opts.variant } : {}),
          },
        }),
      );
      return dataOf('checkout', await typed.POST('/products/checkout/', { body: { payment_method: opts.payment_method ?? 'PARTNER_CREDIT' } })).data;
    },
  };
}

/**
 * A partner with a funded wallet (amounts in currency units): its raw Interface A client
 * (`api`) and its typed clients of Interface A (`client`) and Interface B (`agency`).
 */
export async function newPartner(stack: TestStack, credit_limit = '0', topup = '10000000') {
  const creds = await adminClient(stack).createPartner({ credit_limit, topup });
  return { creds, api: partnerClient(stack, creds), client: typedPartner(stack, creds), agency: typedAgency(stack, creds) };
}

const operatorTokens = new WeakMap<TestStack, Map<string, Promise<string>>>();
/** A named operator's token on this stack (made once per name): the audit names the operator by it. */
export function operatorToken(stack: TestStack, name: string): Promise<string> {
  let tokens = operatorTokens.get(stack);
  if (!tokens) operatorTokens.set(stack, (tokens = new Map()));
  let token = tokens.get(name);
  if (!token) tokens.set(name, (token = addOperator(stack.db, name, 'test').then((o) => o.token)));
  return token;
}
