import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Db } from '../../db/client';
import { notFound } from '../../domain/errors';
import { isStorableId } from '../../domain/ids';
import * as organisation from '../../domain/organisation';
import { forgetCredentials, requirePartner } from '../../domain/partners';
import {
  Connection,
  ConnectionBody,
  IssuedConnection,
  renderConnection,
  renderIssued,
  renderUser,
  RoleBody,
  User,
  UserBody,
} from '../partner/organisation.routes';
import { consoleLinkUrl, mailLink, type LinkMail } from '../console-links';
import { makeLink } from '../../domain/console/links';
import { actorNow } from '../../platform/request-context';
import { audited } from './actions';
import { idParam } from './input';
import { adminOperations, adminRouter } from './router';
import { conflictResponse, idPath, json, jsonBody, notFoundResponse } from './schemas';

const { get, post } = adminOperations(['Agencies’ users and connections']);

/** The id in the path's `name` parameter (its schema refused one that is not a number): a 404 when no row can have it. */
function rowParam(c: Context, name: string, what: string): number {
  const raw = c.req.param(name) ?? '';
  if (!isStorableId(Number(raw))) throw notFound(`${what} ${raw}`);
  return Number(raw);
}

const partner = z.object({ id: idPath('partner') });
const partnerUser = partner.extend({ user: idPath('user', 'user') });
const partnerConnection = partner.extend({ connection: idPath('API connection', 'connection') });

const Link = z
  .object({
    user_id: z.number().int(),
    purpose: z.enum(['invitation', 'reset']),
    url: z.string().openapi({ description: 'The one-time link, shown only in this answer' }),
    expires_at: z.string(),
    mailed: z.boolean().openapi({ description: 'Whether it was also mailed to the user (SMTP_URL)' }),
  })
  .openapi('ConsoleLink');

const linkRoute = <P extends 'invitation' | 'password-reset'>(path: P, summary: string) =>
  createRoute({
    ...post(
      `/admin/partners/{id}/users/{user}/${path}` as `/admin/partners/{id}/users/{user}/${P}`,
      summary,
      'A one-time link for the user to set their console password, shown once.',
    ),
    request: { params: partnerUser },
    responses: { 201: json(Link, 'The link'), ...notFoundResponse },
  });

const routes = {
  users: createRoute({
    ...get('/admin/partners/{id}/users', "An agency's users"),
    request: { params: partner },
    responses: { 200: json(z.object({ users: z.array(User) }), 'Every user, active or not'), ...notFoundResponse },
  }),
  addUser: createRoute({
    ...post('/admin/partners/{id}/users', 'Add a user to an agency'),
    request: { params: partner, body: jsonBody(UserBody) },
    responses: { 201: json(User, 'The user'), ...notFoundResponse, ...conflictResponse('The e-mail is already a user of the agency') },
  }),
  role: createRoute({
    ...post('/admin/partners/{id}/users/{user}/role', "Change an agency user's role"),
    request: { params: partnerUser, body: jsonBody(RoleBody) },
    responses: { 200: json(User, 'The user'), ...notFoundResponse },
  }),
  deactivate: createRoute({
    ...post('/admin/partners/{id}/users/{user}/deactivate', "Deactivate an agency's user"),
    request: { params: partnerUser },
    responses: { 200: json(User, 'The user'), ...notFoundResponse },
  }),
  invitation: linkRoute('invitation', 'An invitation link for a user'),
  reset: linkRoute('password-reset', 'A password reset link for a user'),
  connections: createRoute({
    ...get('/admin/partners/{id}/connections', "An agency's API connections"),
    request: { params: partner },
    responses: { 200: json(z.object({ connections: z.array(Connection) }), 'Every connection, revoked or not'), ...notFoundResponse },
  }),
  addConnection: createRoute({
    ...post('/admin/partners/{id}/connections', 'Add an API connection to an agency', 'Its secret (or bearer key) is shown only in this answer.'),
    request: { params: partner, body: jsonBody(ConnectionBody) },
    responses: { 201: json(IssuedConnection, 'The connection'), ...notFoundResponse },
  }),
  rotate: createRoute({
    ...post('/admin/partners/{id}/connections/{connection}/rotate', "Issue an API connection's secret again", 'The old one stops working at once.'),
    request: { params: partnerConnection },
    responses: { 200: json(IssuedConnection, 'The new secret, shown only now'), ...notFoundResponse },
  }),
  revoke: createRoute({
    ...post('/admin/partners/{id}/connections/{connection}/revoke', 'Revoke an API connection'),
    request: { params: partnerConnection },
    responses: { 200: json(Connection, 'Revoked'), ...notFoundResponse },
  }),
};

/**
 * An agency's users and API connections for operators (`admin agency users|user|connections|connection`):
 * what the agency's owner does through Interface A, with any right, each change audited with the operator.
 */
export function organisationAdminRoutes(deps: { db: Db; linkMail: LinkMail | null }) {
  const { db } = deps;
  const partnerOf = async (c: Context) => (await requirePartner(db, idParam(c, 'partner'))).id;
  const changed = async <T>(c: Context, act: Parameters<typeof audited<T>>[2]) => {
    const out = await audited(db, c, act);
    forgetCredentials(db);
    return out;
  };
  const link = (purpose: 'invitation' | 'reset') => async (c: Context) => {
    const id = await partnerOf(c);
    const userId = rowParam(c, 'user', 'user');
    const made = await audited(db, c, (tx) => makeLink(tx, { partnerId: id, userId, purpose, by: actorNow() }));
    const mailed = await mailLink(deps.linkMail, made);
    return { user_id: userId, purpose, url: consoleLinkUrl(made.token), expires_at: made.expiresAt.toISOString(), mailed };
  };
  const invitation = link('invitation');
  const reset = link('reset');

  return adminRouter()
    .openapi(routes.users, async (c) => c.json({ users: (await organisation.listUsers(db, await partnerOf(c))).map(renderUser) }, 200))
    .openapi(routes.addUser, async (c) => {
      const id = await partnerOf(c);
      const b = c.req.valid('json');
      return c.json(renderUser(await changed(c, (tx) => organisation.createUser(tx, id, b, null))), 201);
    })
    .openapi(routes.role, async (c) => {
      const id = await partnerOf(c);
      const b = c.req.valid('json');
      return c.json(renderUser(await changed(c, (tx) => organisation.setUserRole(tx, id, rowParam(c, 'user', 'user'), b, null))), 200);
    })
    .openapi(routes.deactivate, async (c) => {
      const id = await partnerOf(c);
      return c.json(renderUser(await changed(c, (tx) => organisation.deactivateUser(tx, id, rowParam(c, 'user', 'user'), null))), 200);
    })
    .openapi(routes.invitation, async (c) => c.json(await invitation(c), 201))
    .openapi(routes.reset, async (c) => c.json(await reset(c), 201))
    .openapi(routes.connections, async (c) => c.json({ connections: (await organisation.listConnections(db, await partnerOf(c))).map(renderConnection) }, 200))
    .openapi(routes.addConnection, async (c) => {
      const id = await partnerOf(c);
      const b = c.req.valid('json');
      return c.json(renderIssued(await changed(c, (tx) => organisation.createConnection(tx, id, b, null))), 201);
    })
    .openapi(routes.rotate, async (c) => {
      const id = await partnerOf(c);
      return c.json(renderIssued(await changed(c, (tx) => organisation.rotateConnection(tx, id, rowParam(c, 'connection', 'API connection'), null))), 200);
    })
    .openapi(routes.revoke, async (c) => {
      const id = await partnerOf(c);
      return c.json(renderConnection(await changed(c, (tx) => organisation.revokeConnection(tx, id, rowParam(c, 'connection', 'API connection'), null))), 200);
    });
}
