/** Operators (docs/operations.md, "Operators"): a token each, shown once, stored hashed; revoked ones stay listed, as the audit names them. */
import { createRoute, z } from '@hono/zod-openapi';
import { addOperator, listOperators, revokeOperator, type OperatorView } from '../../domain/operator-tokens';
import { audited, operatorOf } from './actions';
import type { AdminDeps } from './deps';
import { adminOperations, adminRouter } from './router';
import { json, jsonBody, notFoundResponse } from './schemas';

const { get, post } = adminOperations(['Operators']);

const OperatorBody = z
  .object({ name: z.string({ error: 'name is required' }).trim().min(1, 'must not be empty').max(64).openapi({ example: 'sara' }) })
  .openapi('OperatorRequest');

const Operator = z
  .object({
    id: z.number().int(),
    name: z.string(),
    created_at: z.string(),
    created_by: z.string(),
    last_used_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .openapi('Operator');

const renderOperator = (o: OperatorView): z.infer<typeof Operator> => ({
  id: o.id,
  name: o.name,
  created_at: o.createdAt.toISOString(),
  created_by: o.createdBy,
  last_used_at: o.lastUsedAt?.toISOString() ?? null,
  revoked_at: o.revokedAt?.toISOString() ?? null,
});

const routes = {
  list: createRoute({
    ...get('/admin/operators', 'The operators', 'Revoked ones too.'),
    responses: { 200: json(z.object({ results: z.array(Operator) }), 'The operators') },
  }),
  add: createRoute({
    ...post('/admin/operators', 'Add an operator', 'Its token is shown only in this answer.'),
    request: { body: jsonBody(OperatorBody) },
    responses: { 201: json(Operator.extend({ token: z.string().openapi({ description: '`tbo_…`, shown only now' }) }), 'Added') },
  }),
  revoke: createRoute({
    ...post('/admin/operators/{ref}/revoke', "Revoke an operator's token", 'It stops working at once, and its console sessions end.'),
    request: {
      params: z.object({ ref: z.string().openapi({ param: { name: 'ref', in: 'path' }, example: 'sara', description: "The operator's id or name" }) }),
    },
    responses: { 200: json(Operator, 'Revoked'), ...notFoundResponse },
  }),
};

export function operatorRoutes(deps: Pick<AdminDeps, 'db'>) {
  const { db } = deps;
  return adminRouter()
    .openapi(routes.list, async (c) => c.json({ results: (await listOperators(db)).map(renderOperator) }, 200))
    .openapi(routes.add, async (c) => {
      const b = c.req.valid('json');
      const added = await audited(db, c, (tx) => addOperator(tx, b.name, operatorOf(c)));
      return c.json({ ...renderOperator(added), token: added.token }, 201);
    })
    .openapi(routes.revoke, async (c) => {
      const ref = c.req.param('ref').slice(0, 100);
      return c.json(renderOperator(await audited(db, c, (tx) => revokeOperator(tx, ref))), 200);
    });
}
