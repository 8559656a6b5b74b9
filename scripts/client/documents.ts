import type { OpenAPI3 } from 'openapi-typescript';
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

/** Both interfaces' OpenAPI documents as the engine serves them (the sandbox on, as `npm start` has it). */
export async function clientFiles(): Promise<Array<{ file: string; document: { title: string; json: OpenAPI3 } }>> {
  const app = createApp(NO_PARTS);
  const fetchDocument = async (url: string) => {
    const res = await app.request(url);
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    return withoutExamples(await res.json()) as OpenAPI3;
  };
  return [
    { file: 'src/client/partner-api.ts', document: { title: 'Interface A', json: await fetchDocument('/api/openapi.json') } },
    { file: 'src/client/agency-api.ts', document: { title: 'Interface B', json: await fetchDocument('/v1/openapi.json') } },
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
