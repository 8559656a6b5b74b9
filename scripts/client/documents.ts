import type { OpenAPI3 } from 'openapi-typescript';
import { createAdminApp, type AdminDeps } from '../../src/http/admin/app';
import { createApp } from '../../src/http/app';
import type { ApiDeps } from '../../src/http/deps';

/** What building the app reads; serving a document uses none of the parts (a route that did would fail here). */
const NO_PARTS = {
  db: undefined,
  temporal: undefined,
  hotelSupplier: undefined,
  flightSupplier: undefined,
  health: undefined,
  taskQueue: 'documents',
  payWaitMs: 0,
  sandbox: true,
  currency: 'IRT',
  holds: { tourPrebookMs: 0, residenceMs: 0, visaDecisionMs: 0, hostAcceptMs: 0 },
} as unknown as ApiDeps;

/** The bootstrap token of the admin app built here: its document is behind the operator token, like every /admin route. */
export const ADMIN_DOCUMENT_TOKEN = 'client-generation-bootstrap-token-0123456789';

/** What building the admin app reads; serving its document uses none of the parts. */
const NO_ADMIN_PARTS = {
  db: undefined,
  temporal: undefined,
  health: undefined,
  metrics: { role: 'api' },
  adminToken: ADMIN_DOCUMENT_TOKEN,
  signIns: undefined,
  currency: 'IRT',
  taskQueue: 'documents',
  waitMs: 0,
  residenceHoldMs: 0,
  fxRateMaxAgeMs: 0,
  rateLimitPerMinute: 0,
  adjustmentApprovalThresholdMinor: 0,
  linkMail: null,
  nearLimitWatch: async () => {},
} as unknown as AdminDeps;

/** The admin app built without its parts, which serves its document to ADMIN_DOCUMENT_TOKEN. */
export const adminAppForDocuments = () => createAdminApp(NO_ADMIN_PARTS);

/** Both interfaces' and the admin API's OpenAPI documents as the engine serves them (the sandbox on, as `npm start` has it). */
export async function clientFiles(): Promise<Array<{ file: string; document: { title: string; json: OpenAPI3 } }>> {
  const app = createApp(NO_PARTS);
  const admin = adminAppForDocuments();
  const fetchDocument = async (url: string) => {
    const res = url.startsWith('/admin/') ? await admin.request(url, { headers: { authorization: `Bearer ${ADMIN_DOCUMENT_TOKEN}` } }) : await app.request(url);
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    return withoutExamples(await res.json()) as OpenAPI3;
  };
  return [
    { file: 'src/client/partner-api.ts', document: { title: 'Interface A', json: await fetchDocument('/api/openapi.json') } },
    { file: 'src/client/agency-api.ts', document: { title: 'Interface B', json: await fetchDocument('/v1/openapi.json') } },
    { file: 'src/client/admin-api.ts', document: { title: 'the admin API', json: await fetchDocument('/admin/openapi.json') } },
  ];
}

/**
 * Examples are no part of a type, and some are dates relative to today: left in, the
 * generated files would change every day.
 */
function withoutExamples(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutExamples(v));
  if (!value || typeof value !== 'object') return value;
  // Under `properties` (and other name maps) a key is a field's name, not a keyword.
  const names = key === 'properties' || key === 'schemas' || key === 'paths';
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => names || (k !== 'example' && k !== 'examples'))
      .map(([k, v]) => [k, withoutExamples(v, k)]),
  );
}
