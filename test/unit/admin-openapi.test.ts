import { createConfig, lintFromString } from '@redocly/openapi-core';
import { ADMIN_DOCUMENT_TOKEN, adminAppForDocuments } from '../../scripts/client/documents';

/**
 * The admin API's contract (GET /admin/openapi.json): valid OpenAPI 3.1 by the specification's
 * own structure rules, behind the operator token like every /admin route, and naming every
 * route the admin app answers under /admin/ with its method, and no other. The generated
 * client (src/client/admin-api.ts) and the operator console are typed from it.
 */

type Operation = { security?: Array<Record<string, string[]>>; responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> };
type Document = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { securitySchemes?: Record<string, unknown> } };

const app = adminAppForDocuments();
const bearer = { authorization: `Bearer ${ADMIN_DOCUMENT_TOKEN}` };

async function adminDocument(): Promise<Document> {
  const res = await app.request('/admin/openapi.json', { headers: bearer });
  expect(res.status).toBe(200);
  return (await res.json()) as Document;
}

/** What Redocly's rules for the specification's structure find wrong in `doc`. */
async function structuralProblems(doc: Document): Promise<string[]> {
  const config = await createConfig({
    rules: { struct: 'error', 'no-unresolved-refs': 'error', 'operation-operationId-unique': 'error', 'path-parameters-defined': 'error' },
  });
  const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'admin-openapi.json', config });
  return problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
}

/** `METHOD /path/{param}` of every operation the document states. */
const operationsOf = (doc: Document) =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));

describe('the admin API’s OpenAPI document', () => {
  it('is served only with an operator token, as every /admin route', async () => {
    const res = await app.request('/admin/openapi.json');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'missing or invalid admin token' });
  });

  it('is valid OpenAPI 3.1: no structural problem, no unresolved reference', async () => {
    const doc = await adminDocument();
    expect(doc.openapi).toBe('3.1.0');
    expect(await structuralProblems(doc)).toEqual([]);
    // The check sees a broken document: a parameter in no place a parameter can be, a reference to nothing.
    const broken = structuredClone(doc) as Document & { paths: Record<string, Record<string, { parameters?: unknown[] }>> };
    broken.paths['/admin/fx']!.get!.parameters = [{ name: 'rate', in: 'body', schema: { type: 'string' } }];
    broken.paths['/admin/fx']!.post!.responses!['201']!.content!['application/json']!.schema = { $ref: '#/components/schemas/Nothing' };
    const found = await structuralProblems(broken);
    expect(found.some((p) => p.startsWith('struct:'))).toBe(true);
    expect(found.some((p) => p.startsWith('no-unresolved-refs:'))).toBe(true);
  });

  it('names every route of the admin app under /admin/, and no other', async () => {
    const doc = await adminDocument();
    const served = new Set(
      app.routes
        .filter((r) => r.method !== 'ALL' && r.path.startsWith('/admin/') && r.path !== '/admin/openapi.json')
        .map((r) => `${r.method} ${r.path.replace(/:([^/]+)/g, '{$1}')}`),
    );
    expect([...served].sort()).toEqual(operationsOf(doc).sort());
    // The areas of the console and the CLI, at least.
    for (const operation of ['GET /admin/needs-attention', 'POST /admin/partners/{id}/topup', 'POST /admin/markups', 'GET /admin/audit', 'POST /admin/session'])
      expect(served).toContain(operation);
  });

  it('asks for an operator token or the console session on every operation but signing in, and answers every refusal as {error}', async () => {
    const doc = await adminDocument();
    expect(Object.keys(doc.components.securitySchemes ?? {}).sort()).toEqual(['OperatorSession', 'OperatorToken']);
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) {
        const name = `${method.toUpperCase()} ${path}`;
        const schemes = (op.security ?? []).flatMap((s) => Object.keys(s)).sort();
        const expected = name === 'POST /admin/session' ? [] : ['OperatorSession', 'OperatorToken'];
        if (JSON.stringify(schemes) !== JSON.stringify(expected)) wrong.push(`${name}: security ${schemes.join(', ')}`);
        for (const [status, response] of Object.entries(op.responses ?? {})) {
          // Its 503 is the health report itself, as its 200 is.
          if (Number(status) < 400 || (name === 'GET /admin/healthz' && status === '503')) continue;
          const schema = JSON.stringify(response.content?.['application/json']?.schema ?? null);
          if (schema !== JSON.stringify({ $ref: '#/components/schemas/Error' })) wrong.push(`${name} ${status}: ${schema}`);
        }
        if (name !== 'POST /admin/session' && !op.responses?.['401']) wrong.push(`${name}: no 401`);
      }
    expect(wrong).toEqual([]);
  });
});
