import { createRoute, z } from '@hono/zod-openapi';
import { healthz } from '../../health/answers';
import type { AdminDeps } from './deps';
import { adminOperations, adminRouter } from './router';
import { json, retryAfter } from './schemas';

const Health = z
  .object({
    ok: z.boolean(),
    checks: z
      .record(z.string(), z.object({ ok: z.boolean(), detail: z.string().optional() }))
      .openapi({ description: 'Each part’s check, with its cause when it fails' }),
    checked_at: z.string().nullable().optional(),
    supplier_breakers: z.array(z.unknown()).optional().openapi({ description: "The suppliers' search breakers" }),
  })
  .openapi('AdminHealth');

const route = createRoute({
  ...adminOperations(['Health']).get('/admin/healthz', "Each part's check with its cause", 'The public /healthz says only healthy or not.'),
  responses: {
    200: json(Health, 'Every part is healthy'),
    503: { ...json(Health, 'A part is not'), headers: retryAfter('Seconds to wait before asking again') },
  },
});

/** `GET /admin/healthz`: for operators; answered even while the database is down. */
export function adminHealthRoute(deps: Pick<AdminDeps, 'health' | 'breakers'>) {
  return adminRouter().openapi(route, (c) => healthz(c, { ...deps.health.report(), supplier_breakers: deps.breakers?.views() ?? [] }) as never);
}
