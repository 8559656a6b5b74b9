import { createRoute, z } from '@hono/zod-openapi';
import { AGENCY_ROLES } from '../../db/schema';
import { rowIdOf } from '../../domain/ids';
import * as organisation from '../../domain/organisation';
import { RIGHT_NAMES, RIGHTS, ROLE_RIGHTS } from '../../domain/rights';
import { recordAgencyChange } from '../../domain/audit';
import type { DbOrTx } from '../../db/client';
import { forgetCredentials } from '../../domain/partners';
import type { ApiDeps } from '../deps';
import { created, ok, partnerRouter } from './router';
import { commonErrors, errorResponse, Id, json, jsonBody, partnerOperations } from './schemas';
import { page } from './paging';

const { get, post } = partnerOperations(['Users and connections']);

const RIGHT_LIST = RIGHT_NAMES.map((r) => `\`${r}\`: ${RIGHTS[r]}`).join('; ');
const ROLE_LIST = AGENCY_ROLES.map((r) => `\`${r}\`: ${ROLE_RIGHTS[r].join(', ')}`).join('; ');

export const User = z
  .object({
    id: z.number().int(),
    name: z.string(),
    email: z.string(),
    role: z.enum(AGENCY_ROLES).openapi({ description: `What the user may do: ${ROLE_LIST}` }),
    own_bookings_only: z.boolean().openapi({ description: 'An agent who sees only the bookings they made' }),
    status: z.enum(['active', 'inactive']),
    two_factor: z.boolean().openapi({ description: 'Whether the user signs in to the console with a code of an authenticator app too' }),
    created_at: z.string(),
  })
  .openapi('User');

export const Connection = z
  .object({
    id: z.number().int(),
    name: z.string(),
    interface: z.enum(['a', 'b']),
    api_key: z.string().nullable().openapi({ description: "Interface A's X-API-KEY (an identifier); null on Interface B" }),
    rights: z.array(z.string()).openapi({ description: `What it may do: ${RIGHT_LIST}` }),
    user_id: z.number().int().nullable().openapi({ description: 'The user it acts as (within that user’s role too); null: it acts as itself' }),
    status: z.enum(['active', 'revoked']),
    created_at: z.string(),
    rotated_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .openapi('Connection');

export const IssuedConnection = Connection.extend({
  api_secret: z.string().optional().openapi({ description: "Interface A's X-API-SECRET: shown only in this answer" }),
  agency_key: z.string().optional().openapi({ description: "Interface B's bearer key: shown only in this answer" }),
}).openapi('IssuedConnection');

export const UserBody = z
  .object({
    name: z.string().openapi({ example: 'Sara Ahmadi' }),
    email: z.string().openapi({ example: 'sara@agency.example' }),
    role: z.string().openapi({ example: 'agent', description: `One of ${AGENCY_ROLES.join(', ')}` }),
    own_bookings_only: z.boolean().optional().openapi({ description: 'For an agent: sees only the bookings they made' }),
  })
  .openapi('UserRequest');

export const RoleBody = z
  .object({
    role: z.string().openapi({ example: 'viewer' }),
    own_bookings_only: z.boolean().optional(),
  })
  .openapi('UserRoleRequest');

export const ConnectionBody = z
  .object({
    name: z.string().openapi({ example: 'Booking website' }),
    interface: z.string().openapi({ example: 'a', description: '"a" (key and secret) or "b" (bearer key)' }),
    rights: z.array(z.string()).openapi({ example: ['search', 'book', 'pay', 'view'], description: `Rights from: ${RIGHT_NAMES.join(', ')}` }),
    user_id: z.number().int().optional().openapi({ description: 'A user of the agency the connection acts as' }),
  })
  .openapi('ConnectionRequest');

const forbidden = { 403: errorResponse('You lack the right, or would grant one you do not hold') };

const routes = {
  listUsers: createRoute({
    ...get('/partners/users/', "The agency's users"),
    responses: { 200: json(page(User), 'Every user, active or not'), ...commonErrors },
  }),
  createUser: createRoute({
    ...post(
      '/partners/users/',
      'Add a user',
      'A user has a name, an e-mail unique within the agency and a role; nobody grants a role with rights they do not hold.',
    ),
    request: { body: jsonBody(UserBody) },
    responses: { 201: json(User, 'The user'), 409: errorResponse('The e-mail is already a user of the agency'), ...forbidden, ...commonErrors },
  }),
  setRole: createRoute({
    ...post('/partners/users/{id}/role/', "Change a user's role"),
    request: { params: Id('id'), body: jsonBody(RoleBody) },
    responses: { 200: json(User, 'The user'), ...forbidden, ...commonErrors },
  }),
  deactivate: createRoute({
    ...post('/partners/users/{id}/deactivate/', 'Deactivate a user', 'Their connections stop working; what they did stays theirs.'),
    request: { params: Id('id') },
    responses: { 200: json(User, 'The user'), ...forbidden, ...commonErrors },
  }),
  listConnections: createRoute({
    ...get('/partners/connections/', "The agency's API connections"),
    responses: { 200: json(page(Connection), 'Every connection, active or revoked (credentials are never shown again)'), ...commonErrors },
  }),
  createConnection: createRoute({
    ...post('/partners/connections/', 'Create an API connection', 'Answers its credentials once. Its rights are at most yours.'),
    request: { body: jsonBody(ConnectionBody) },
    responses: { 201: json(IssuedConnection, 'The connection with its credentials'), ...forbidden, ...commonErrors },
  }),
  rotate: createRoute({
    ...post(
      '/partners/connections/{id}/rotate/',
      'New credentials for a connection',
      'The old secret (or bearer key) stops working at once; the API key stays.',
    ),
    request: { params: Id('id') },
    responses: {
      200: json(IssuedConnection, 'The connection with its new credentials'),
      409: errorResponse('The connection is revoked'),
      ...forbidden,
      ...commonErrors,
    },
  }),
  revoke: createRoute({
    ...post('/partners/connections/{id}/revoke/', 'Revoke a connection', 'For good: its credentials stop working; what it did stays attributed to it.'),
    request: { params: Id('id') },
    responses: { 200: json(Connection, 'The revoked connection'), ...forbidden, ...commonErrors },
  }),
};

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const renderUser = (u: organisation.UserRow): z.infer<typeof User> => ({
  id: u.id,
  name: u.name,
  email: u.email,
  role: u.role,
  own_bookings_only: u.ownBookingsOnly,
  status: u.status,
  two_factor: u.totpEnabledAt !== null,
  created_at: u.createdAt.toISOString(),
});

export const renderConnection = (k: organisation.ConnectionRow): z.infer<typeof Connection> => ({
  id: k.id,
  name: k.name,
  interface: k.interface,
  api_key: k.apiKey,
  rights: k.rights,
  user_id: k.userId,
  status: k.status,
  created_at: k.createdAt.toISOString(),
  rotated_at: iso(k.rotatedAt),
  revoked_at: iso(k.revokedAt),
});

export const renderIssued = (i: organisation.IssuedConnection): z.infer<typeof IssuedConnection> => ({
  ...renderConnection(i.connection),
  ...(i.apiSecret ? { api_secret: i.apiSecret } : {}),
  ...(i.agencyKey ? { agency_key: i.agencyKey } : {}),
});

/** Runs an agency's change and its audit row in one transaction; credentials cached in this process are read again after it. */
async function audited<T>(deps: ApiDeps, run: (tx: DbOrTx) => Promise<T>): Promise<T> {
  const out = await deps.db.transaction((tx) => run(tx));
  forgetCredentials(deps.db);
  return out;
}

const wholePage = <T>(results: T[]) => ({ current_page: 1, total_pages: 1, total_count: results.length, next: null, previous: null, results });

/** Interface A's extension for an agency's users and API connections (docs/guides/users-and-roles.md). */
export function organisationRoutes(deps: ApiDeps) {
  const { db } = deps;
  return partnerRouter()
    .openapi(routes.listUsers, async (c) => ok(c, wholePage((await organisation.listUsers(db, c.get('partner').id)).map(renderUser))))
    .openapi(routes.createUser, async (c) => {
      const { id, principal } = c.get('partner');
      const user = await audited(deps, async (tx) => {
        const user = await organisation.createUser(tx, id, c.req.valid('json'), principal.rights);
        await recordAgencyChange(tx, principal.actor, id, 'user.create', { user_id: user.id, role: user.role });
        return user;
      });
      return created(c, renderUser(user));
    })
    .openapi(routes.setRole, async (c) => {
      const { id, principal } = c.get('partner');
      const user = await audited(deps, async (tx) => {
        const user = await organisation.setUserRole(tx, id, rowIdOf(c.req.valid('param').id, 'user'), c.req.valid('json'), principal.rights);
        await recordAgencyChange(tx, principal.actor, id, 'user.role', { user_id: user.id, role: user.role });
        return user;
      });
      return ok(c, renderUser(user));
    })
    .openapi(routes.deactivate, async (c) => {
      const { id, principal } = c.get('partner');
      const user = await audited(deps, async (tx) => {
        const user = await organisation.deactivateUser(tx, id, rowIdOf(c.req.valid('param').id, 'user'), principal.rights);
        await recordAgencyChange(tx, principal.actor, id, 'user.deactivate', { user_id: user.id });
        return user;
      });
      return ok(c, renderUser(user));
    })
    .openapi(routes.listConnections, async (c) => ok(c, wholePage((await organisation.listConnections(db, c.get('partner').id)).map(renderConnection))))
    .openapi(routes.createConnection, async (c) => {
      const { id, principal } = c.get('partner');
      const issued = await audited(deps, async (tx) => {
        const issued = await organisation.createConnection(tx, id, c.req.valid('json'), principal.rights);
        await recordAgencyChange(tx, principal.actor, id, 'connection.create', { connection_id: issued.connection.id, rights: issued.connection.rights });
        return issued;
      });
      return created(c, renderIssued(issued));
    })
    .openapi(routes.rotate, async (c) => {
      const { id, principal } = c.get('partner');
      const issued = await audited(deps, async (tx) => {
        const issued = await organisation.rotateConnection(tx, id, rowIdOf(c.req.valid('param').id, 'API connection'), principal.rights);
        await recordAgencyChange(tx, principal.actor, id, 'connection.rotate', { connection_id: issued.connection.id });
        return issued;
      });
      return ok(c, renderIssued(issued));
    })
    .openapi(routes.revoke, async (c) => {
      const { id, principal } = c.get('partner');
      const revoked = await audited(deps, async (tx) => {
        const revoked = await organisation.revokeConnection(tx, id, rowIdOf(c.req.valid('param').id, 'API connection'), principal.rights);
        await recordAgencyChange(tx, principal.actor, id, 'connection.revoke', { connection_id: revoked.id });
        return revoked;
      });
      return ok(c, renderConnection(revoked));
    });
}
