import type { Context, Hono } from 'hono';
import type { Db } from '../../db/client';
import { DomainError, notFound } from '../../domain/errors';
import { isStorableId } from '../../domain/ids';
import * as organisation from '../../domain/organisation';
import { forgetCredentials, requirePartner } from '../../domain/partners';
import { renderConnection, renderIssued, renderUser } from '../partner/organisation.routes';
import { consoleLinkUrl, mailLink, type LinkMail } from '../console-links';
import { makeLink } from '../../domain/console/links';
import { actorNow } from '../../platform/request-context';
import type { RequestIdVariables } from '../request-id';
import { audited, type OperatorVariables } from './actions';
import { idParam } from './input';

/** The id in the path's `name` parameter, or a 400 (not a number) or 404 (no row can have it). */
function rowParam(c: Context, name: string, what: string): number {
  const raw = c.req.param(name) ?? '';
  if (!/^[1-9]\d{0,9}$/.test(raw)) throw new DomainError('validation', `${what}: must be a positive integer id`);
  if (!isStorableId(Number(raw))) throw notFound(`${what} ${raw}`);
  return Number(raw);
}

/** A JSON object body, or a 400. */
async function objectBody(c: Context): Promise<Record<string, unknown>> {
  const parsed: unknown = await c.req.json().catch(() => undefined);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new DomainError('validation', 'body: must be a JSON object');
  return parsed as Record<string, unknown>;
}

/**
 * An agency's users and API connections for operators (`admin agency users|user|connections|connection`):
 * what the agency's owner does through Interface A, with any right, each change audited with the operator.
 */
export function organisationAdminRoutes(app: Hono<{ Variables: RequestIdVariables & OperatorVariables }>, db: Db, linkMail: LinkMail | null) {
  const partnerOf = async (c: Context) => (await requirePartner(db, idParam(c, 'partner'))).id;
  const changed = async <T>(c: Context, act: Parameters<typeof audited<T>>[2]) => {
    const out = await audited(db, c, act);
    forgetCredentials(db);
    return out;
  };

  app.get('/admin/partners/:id/users', async (c) => c.json({ users: (await organisation.listUsers(db, await partnerOf(c))).map(renderUser) }));
  app.post('/admin/partners/:id/users', async (c) => {
    const id = await partnerOf(c);
    const b = await objectBody(c);
    return c.json(renderUser(await changed(c, (tx) => organisation.createUser(tx, id, b as never, null))), 201);
  });
  app.post('/admin/partners/:id/users/:user/role', async (c) => {
    const id = await partnerOf(c);
    const b = await objectBody(c);
    return c.json(renderUser(await changed(c, (tx) => organisation.setUserRole(tx, id, rowParam(c, 'user', 'user'), b as never, null))));
  });
  app.post('/admin/partners/:id/users/:user/deactivate', async (c) => {
    const id = await partnerOf(c);
    return c.json(renderUser(await changed(c, (tx) => organisation.deactivateUser(tx, id, rowParam(c, 'user', 'user'), null))));
  });
  // One-time links for a user to set their console password (docs/decisions/console-sign-in.md), shown once.
  for (const [path, purpose] of [
    ['invitation', 'invitation'],
    ['password-reset', 'reset'],
  ] as const) {
    app.post(`/admin/partners/:id/users/:user/${path}`, async (c) => {
      const id = await partnerOf(c);
      const userId = rowParam(c, 'user', 'user');
      const made = await audited(db, c, (tx) => makeLink(tx, { partnerId: id, userId, purpose, by: actorNow() }));
      const mailed = await mailLink(linkMail, made);
      return c.json({ user_id: userId, purpose, url: consoleLinkUrl(made.token), expires_at: made.expiresAt.toISOString(), mailed }, 201);
    });
  }
  app.get('/admin/partners/:id/connections', async (c) =>
    c.json({ connections: (await organisation.listConnections(db, await partnerOf(c))).map(renderConnection) }),
  );
  app.post('/admin/partners/:id/connections', async (c) => {
    const id = await partnerOf(c);
    const b = await objectBody(c);
    return c.json(renderIssued(await changed(c, (tx) => organisation.createConnection(tx, id, b as never, null))), 201);
  });
  app.post('/admin/partners/:id/connections/:connection/rotate', async (c) => {
    const id = await partnerOf(c);
    return c.json(renderIssued(await changed(c, (tx) => organisation.rotateConnection(tx, id, rowParam(c, 'connection', 'API connection'), null))));
  });
  app.post('/admin/partners/:id/connections/:connection/revoke', async (c) => {
    const id = await partnerOf(c);
    return c.json(renderConnection(await changed(c, (tx) => organisation.revokeConnection(tx, id, rowParam(c, 'connection', 'API connection'), null))));
  });
}
