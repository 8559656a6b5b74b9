import { AGENCY_ROLES, type AgencyRole } from '../../src/db/schema';
import { RIGHT_NAMES, ROLE_RIGHTS, type Right } from '../../src/domain/rights';
import { ORDER_SUBJECTS } from '../../src/http/own-bookings';
import { OPERATION_RIGHTS, publishedRights, rightsNeeded, type OperationRights } from '../../src/http/rights';
import { adminClient, call, type PartnerCredentials, type Reply } from '../support/clients';
import { ADMIN_TOKEN, type TestStack, useStack } from '../support/stack';
import { toCommand } from '../../src/cli/admin';
import { contact, day } from '../support/fixtures';

/**
 * The rights table (src/http/rights.ts, src/domain/rights.ts) against what the API does: every
 * operation of Interfaces A and B, called by every role and by a connection given rights of
 * its own, is refused with 403 in its interface's shape exactly when a right it needs is missing.
 */

let stack: TestStack;
useStack((s) => (stack = s));

interface Principal {
  label: string;
  rights: ReadonlySet<Right>;
  a: Record<string, string>;
  b: Record<string, string>;
}

const aHeaders = (k: { api_key: string; api_secret: string }) => ({ 'x-api-key': k.api_key, 'x-api-secret': k.api_secret });
const bHeaders = (agencyKey: string) => ({ authorization: `Bearer ${agencyKey}` });

let agency: PartnerCredentials;
const principals: Principal[] = [];

async function post(path: string, headers: Record<string, string>, body: unknown): Promise<Reply> {
  const res = await call(stack.app, 'POST', path, headers, body);
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

/** A user of `role` with an Interface A and an Interface B connection of their own (given every right: the role bounds them). */
async function userWithConnections(role: AgencyRole): Promise<Principal> {
  const owner = aHeaders(agency);
  const user = await post('/api/partners/users/', owner, { name: `${role} one`, email: `${role}@agency.example`, role });
  const a = await post('/api/partners/connections/', owner, { name: `${role} A`, interface: 'a', rights: RIGHT_NAMES, user_id: user.body.data.id });
  const b = await post('/api/partners/connections/', owner, { name: `${role} B`, interface: 'b', rights: RIGHT_NAMES, user_id: user.body.data.id });
  return { label: `user (${role})`, rights: new Set(ROLE_RIGHTS[role]), a: aHeaders(a.body.data), b: bHeaders(b.body.data.agency_key) };
}

async function connectionWith(rights: Right[]): Promise<Principal> {
  const owner = aHeaders(agency);
  const a = await post('/api/partners/connections/', owner, { name: `only ${rights.join('+')} A`, interface: 'a', rights });
  const b = await post('/api/partners/connections/', owner, { name: `only ${rights.join('+')} B`, interface: 'b', rights });
  return { label: `connection (${rights.join(', ')})`, rights: new Set(rights), a: aHeaders(a.body.data), b: bHeaders(b.body.data.agency_key) };
}

beforeAll(async () => {
  agency = await adminClient(stack).createPartner({ credit_limit: '0', topup: '1000' });
  principals.push({ label: 'first connections (as before users)', rights: new Set(RIGHT_NAMES), a: aHeaders(agency), b: bHeaders(agency.agency_key) });
  for (const role of AGENCY_ROLES) principals.push(await userWithConnections(role));
  principals.push(await connectionWith(['search']), await connectionWith(['view', 'documents']));
});

/**
 * Requests to `operation` that reach its handler: path parameters that name nothing, an empty
 * body; for a document's download, one file of each kind of rights (a voucher, an invoice).
 */
function requestsOf(operation: string, needs: OperationRights): Array<{ method: string; path: string; needed: readonly Right[] }> {
  const [method, template] = operation.split(' ') as [string, string];
  const files = template.includes('{file}') ? ['voucher.pdf', 'invoice.pdf', 'credit-note-2.pdf'] : [undefined];
  return files.map((file) => ({
    method,
    path: template.replace('{file}', file ?? '').replace(/\{[^}]+\}/g, '987654321'),
    needed: rightsNeeded(needs, file),
  }));
}

describe('the rights table', () => {
  it('names, for the own-bookings check, only operations it knows', () => {
    for (const operation of Object.keys(ORDER_SUBJECTS))
      expect({ operation, known: Object.hasOwn(OPERATION_RIGHTS, operation) }).toEqual({ operation, known: true });
  });

  it('names every operation the OpenAPI documents publish, and no other', async () => {
    const published: string[] = [];
    for (const [base, doc] of [
      ['/api', '/api/openapi.json'],
      ['/v1', '/v1/openapi.json'],
    ] as const) {
      const res = await call(stack.app, 'GET', doc, {});
      for (const [path, item] of Object.entries(res.body.paths as Record<string, Record<string, { security?: unknown[] }>>)) {
        for (const [method, op] of Object.entries(item)) {
          if (!op.security?.length) continue;
          const operation = `${method.toUpperCase()} ${base}${path}`;
          published.push(operation);
          // Each operation's document says which rights it needs.
          expect({ operation, rights: (op as { 'x-rights'?: unknown })['x-rights'] }).toEqual({
            operation,
            rights: publishedRights(OPERATION_RIGHTS[operation]!),
          });
        }
      }
    }
    expect(Object.keys(OPERATION_RIGHTS).sort()).toEqual(published.sort());
  });

  it('refuses each operation, for every role and connection, exactly when a right it needs is missing', async () => {
    const wrong: string[] = [];
    for (const [operation, needs] of Object.entries(OPERATION_RIGHTS)) {
      for (const { method, path, needed } of requestsOf(operation, needs))
        for (const p of principals) {
          const headers = path.startsWith('/v1') ? p.b : p.a;
          const res = await call(stack.app, method, path, headers, method === 'GET' || method === 'DELETE' ? undefined : {});
          const allowed = needed.every((r) => p.rights.has(r));
          if (allowed ? res.status === 403 : res.status !== 403) wrong.push(`${operation} as ${p.label}: ${res.status} ${JSON.stringify(res.body)}`);
          if (!allowed) {
            const shaped = path.startsWith('/v1')
              ? typeof res.body.detail === 'string' && /forbidden: .* lacks the right to/.test(res.body.detail)
              : res.body.ok === false && /forbidden: .* lacks the right to/.test(res.body.error);
            if (!shaped) wrong.push(`${operation} as ${p.label}: refusal not in the interface's shape: ${JSON.stringify(res.body)}`);
          }
          if (res.status >= 500) wrong.push(`${operation} as ${p.label}: ${res.status}`);
        }
    }
    expect(wrong).toEqual([]);
  }, 300_000);

  it('keeps the named cases: a viewer cannot pay, finance cannot book, an agent cannot manage users', async () => {
    const as = (label: string) => principals.find((p) => p.label === label)!;
    const pay = await call(stack.app, 'POST', '/api/partners/pay/', as('user (viewer)').a, { order_id: 1, idempotency_key: 'k1' });
    expect(pay.status).toBe(403);
    const book = await call(stack.app, 'POST', '/api/hotel/book/', as('user (finance)').a, {});
    expect(book.status).toBe(403);
    const bBook = await call(stack.app, 'POST', '/v1/hotels/bookings', as('user (finance)').b, {});
    expect(bBook.status).toBe(403);
    expect(bBook.body).toEqual({ detail: expect.stringMatching(/forbidden: user finance one lacks the right to book and pay/) });
    const users = await call(stack.app, 'POST', '/api/partners/users/', as('user (agent)').a, { name: 'x', email: 'x@agency.example', role: 'owner' });
    expect(users.status).toBe(403);
  });
});

describe('users and connections', () => {
  it('never lets anyone grant a right they do not hold', async () => {
    const limited = await connectionWith(['users', 'connections', 'search']);
    const owner = await call(stack.app, 'POST', '/api/partners/users/', limited.a, { name: 'Boss', email: 'boss@agency.example', role: 'owner' });
    expect(owner.status).toBe(403);
    expect(owner.body.error).toMatch(/which you do not hold yourself/);
    const pay = await call(stack.app, 'POST', '/api/partners/connections/', limited.a, { name: 'payer', interface: 'a', rights: ['pay'] });
    expect(pay.status).toBe(403);
    const fine = await call(stack.app, 'POST', '/api/partners/connections/', limited.a, { name: 'searcher', interface: 'b', rights: ['search'] });
    expect(fine.status).toBe(201);
    expect(fine.body.data).toMatchObject({ interface: 'b', rights: ['search'], api_key: null, agency_key: expect.stringMatching(/^agk_/) });
  });

  it('rotates and revokes a connection on its own, leaving the others working', async () => {
    const owner = aHeaders(agency);
    const made = await post('/api/partners/connections/', owner, { name: 'website', interface: 'a', rights: ['search', 'view'] });
    const k = made.body.data;
    expect((await call(stack.app, 'GET', '/api/partners/orders/', aHeaders(k))).status).toBe(200);
    const rotated = await call(stack.app, 'POST', `/api/partners/connections/${k.id}/rotate/`, owner, {});
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.api_key).toBe(k.api_key);
    expect(rotated.body.data.api_secret).not.toBe(k.api_secret);
    expect((await call(stack.app, 'GET', '/api/partners/orders/', aHeaders(k))).status).toBe(401);
    expect((await call(stack.app, 'GET', '/api/partners/orders/', aHeaders(rotated.body.data))).status).toBe(200);
    const revoked = await call(stack.app, 'POST', `/api/partners/connections/${k.id}/revoke/`, owner, {});
    expect(revoked.body.data).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
    const refused = await call(stack.app, 'GET', '/api/partners/orders/', aHeaders(rotated.body.data));
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatch(/revoked/);
    expect((await call(stack.app, 'GET', '/api/partners/orders/', owner)).status).toBe(200);
    const list = await call(stack.app, 'GET', '/api/partners/connections/', owner);
    expect(JSON.stringify(list.body)).not.toMatch(new RegExp(`${k.api_secret}|${rotated.body.data.api_secret}`));
  });

  it('stops a deactivated user’s connections, and refuses bad input with 4xx', async () => {
    const owner = aHeaders(agency);
    const user = await post('/api/partners/users/', owner, { name: 'Temp', email: 'temp@agency.example', role: 'agent' });
    const k = await post('/api/partners/connections/', owner, { name: 'temp A', interface: 'a', rights: ['view'], user_id: user.body.data.id });
    expect((await call(stack.app, 'GET', '/api/partners/orders/', aHeaders(k.body.data))).status).toBe(200);
    const off = await call(stack.app, 'POST', `/api/partners/users/${user.body.data.id}/deactivate/`, owner, {});
    expect(off.body.data.status).toBe('inactive');
    expect((await call(stack.app, 'GET', '/api/partners/orders/', aHeaders(k.body.data))).status).toBe(401);

    const again = await call(stack.app, 'POST', '/api/partners/users/', owner, { name: 'Temp 2', email: 'TEMP@agency.example', role: 'viewer' });
    expect(again.status).toBe(409);
    for (const body of [
      { name: '', email: 'a@b.example', role: 'agent' },
      { name: 'A', email: 'not an address', role: 'agent' },
      { name: 'A', email: 'a@b.example', role: 'admin' },
      { name: 'A', email: 'a@b.example', role: 'viewer', own_bookings_only: true },
    ]) {
      const res = await call(stack.app, 'POST', '/api/partners/users/', owner, body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
    }
    for (const body of [
      { name: 'x', interface: 'c', rights: ['search'] },
      { name: 'x', interface: 'a', rights: [] },
      { name: 'x', interface: 'a', rights: ['fly'] },
      { name: 'x', interface: 'a', rights: ['search'], user_id: 987654 },
    ]) {
      const res = await call(stack.app, 'POST', '/api/partners/connections/', owner, body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
    }
    const other = await adminClient(stack).createPartner({ credit_limit: '0', topup: '0' });
    const foreign = await call(stack.app, 'POST', `/api/partners/users/${user.body.data.id}/role/`, aHeaders(other), { role: 'owner' });
    expect(foreign.status).toBe(404);
  });
});

describe('who did what, and agents who see only their own bookings', () => {
  /** A SIM card bought and paid through `headers`: the product order's id. */
  async function buySimCard(headers: Record<string, string>, key: string): Promise<number> {
    expect((await call(stack.app, 'POST', '/api/products/basket/items/', headers, { product: 1, variant: 2, quantity: 1 })).status).toBe(201);
    const order = await call(stack.app, 'POST', '/api/products/checkout/', headers, { payment_method: 'PARTNER_CREDIT' });
    expect(order.status).toBe(201);
    const paid = await call(stack.app, 'POST', '/api/partners/pay/', headers, { product_order_id: order.body.data.id, idempotency_key: key });
    expect(paid.body.data).toMatchObject({ order_status: 'completed' });
    return order.body.data.id;
  }

  it('records the user on the order, its events and its ledger row, and narrows an own-bookings agent’s lists', async () => {
    const shop = await adminClient(stack).createPartner({ credit_limit: '0', topup: '10000000' });
    const owner = aHeaders(shop);
    const agentOf = async (name: string, ownOnly: boolean) => {
      const u = await post('/api/partners/users/', owner, { name, email: `${name.toLowerCase()}@shop.example`, role: 'agent', own_bookings_only: ownOnly });
      const k = await post('/api/partners/connections/', owner, { name: `${name}'s key`, interface: 'a', rights: RIGHT_NAMES, user_id: u.body.data.id });
      return { id: u.body.data.id as number, headers: aHeaders(k.body.data), connection: k.body.data.id as number };
    };
    const sara = await agentOf('Sara', true);
    const omid = await agentOf('Omid', false);
    const saras = await buySimCard(sara.headers, 'sara-1');
    const omids = await buySimCard(omid.headers, 'omid-1');

    const asSara = { type: 'user', id: sara.id, name: 'Sara' };
    const everyOrder = await call(stack.app, 'GET', '/api/partners/product-orders/', owner);
    const mine = everyOrder.body.data.results.find((o: { id: number }) => o.id === saras);
    expect(mine).toMatchObject({ created_by: asSara, acted_by: asSara });
    const ledger = await call(stack.app, 'GET', '/api/partners/ledger/', owner);
    expect(ledger.body.data.results.find((r: { product_order: number }) => r.product_order === saras)).toMatchObject({ type: 'payment', actor: asSara });

    // Sara sees only her order, and only its events; Omid, an agent without the limit, sees both.
    const hers = await call(stack.app, 'GET', '/api/partners/product-orders/', sara.headers);
    expect(hers.body.data.results.map((o: { id: number }) => o.id)).toEqual([saras]);
    expect(hers.body.data.total_count).toBe(1);
    const herEvents = await call(stack.app, 'GET', '/api/partners/events/', sara.headers);
    expect(herEvents.body.data.results.length).toBeGreaterThan(0);
    expect(new Set(herEvents.body.data.results.map((e: { order_id: number }) => e.order_id))).toEqual(new Set([saras]));
    for (const e of herEvents.body.data.results) expect(e.data).toMatchObject({ created_by: asSara });
    const his = await call(stack.app, 'GET', '/api/partners/product-orders/', omid.headers);
    expect(his.body.data.results.map((o: { id: number }) => o.id).sort()).toEqual([saras, omids].sort());

    // One order at a time too: Omid's is as unknown to Sara as no order at all, on A and on B; hers she reads.
    const saraB = await post('/api/partners/connections/', owner, { name: 'Sara B', interface: 'b', rights: RIGHT_NAMES, user_id: sara.id });
    const saraOnB = bHeaders(saraB.body.data.agency_key);
    for (const [method, path, headers, body] of [
      ['GET', `/api/partners/orders/${omids}/documents/`, sara.headers, undefined],
      ['GET', `/api/partners/orders/${omids}/documents/voucher.pdf`, sara.headers, undefined],
      ['POST', '/api/partners/pay/', sara.headers, { product_order_id: omids, idempotency_key: 'sara-pays-omids' }],
      ['GET', `/v1/products/orders/${omids}`, saraOnB, undefined],
      ['GET', `/v1/products/orders/${omids}/documents`, saraOnB, undefined],
    ] as const) {
      const res = await call(stack.app, method, path, headers, body);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(JSON.stringify(res.body)).toMatch(new RegExp(`order ${omids} not found`));
    }
    expect((await call(stack.app, 'GET', `/api/partners/orders/${saras}/documents/`, sara.headers)).status).toBe(200);
    expect((await call(stack.app, 'GET', `/v1/products/orders/${saras}`, saraOnB)).status).toBe(200);
    expect((await call(stack.app, 'GET', `/api/partners/orders/${saras}/documents/`, omid.headers)).status).toBe(200);

    // An operator's top-up is the operator's.
    await adminClient(stack).post(`/admin/partners/${shop.partner_id}/topup`, { amount: '100' });
    const after = await call(stack.app, 'GET', '/api/partners/ledger/', owner);
    expect(after.body.data.results[0]).toMatchObject({ type: 'topup', actor: { type: 'operator', name: expect.any(String) } });
  });
});

describe('holds and baskets belong to whoever made them', () => {
  const send = (path: string, headers: Record<string, string>, body: unknown) => call(stack.app, 'POST', path, headers, body);
  const traveller = { first_name: 'Reza', last_name: 'Karimi', nationality: 'IR', national_id: '0012345679' };

  it('refuses an own-bookings agent a colleague’s hotel, tour and villa holds, and gives each user a basket of their own', async () => {
    const shop = await adminClient(stack).createPartner({ credit_limit: '0', topup: '10000000' });
    const owner = aHeaders(shop);
    const agentOf = async (name: string, ownOnly: boolean) => {
      const u = await post('/api/partners/users/', owner, { name, email: `${name.toLowerCase()}@holds.example`, role: 'agent', own_bookings_only: ownOnly });
      const k = await post('/api/partners/connections/', owner, { name: `${name}'s key`, interface: 'a', rights: RIGHT_NAMES, user_id: u.body.data.id });
      return aHeaders(k.body.data);
    };
    const sara = await agentOf('Leila', true);
    const omid = await agentOf('Babak', false);

    const search = await send('/api/hotel/search_hotels/', omid, {
      city_id: 1,
      check_in: day(40),
      check_out: day(42),
      nationality_id: 'IR',
      rooms: [{ adult_count: 2 }],
    });
    const rateKey = search.body.data.results[0].rates[0].rate_key;
    const hotel = await send('/api/hotel/prebook/', omid, { rate_key: rateKey });
    expect(hotel.status).toBe(200);
    const tours = await call(stack.app, 'GET', '/api/tours/', omid);
    const tour = await call(stack.app, 'GET', `/api/tours/${tours.body.data.results[0].id}/`, omid);
    const departure = tour.body.data.departures.find((d: { seats_left: number }) => d.seats_left > 0);
    const seats = await send('/api/tours/prebook/', omid, {
      tour_id: tour.body.data.id,
      departure_id: departure.id,
      passengers: [{ ...traveller, birth_date: '1985-04-12', gender: 'male', passenger_type: 'ADT' }],
    });
    expect(seats.status).toBe(200);
    const villa = await send('/api/residence/reserve/', omid, {
      property_id: 1,
      check_in: day(300),
      check_out: day(303),
      guests: 2,
      lead_guest: { ...traveller, phone_number: '+989121234567' },
    });
    expect(villa.status).toBe(200);
    const bookingId = hotel.body.data.booking_id;
    const reservationId = villa.body.data.reservation_id;

    for (const [method, path, body] of [
      ['POST', '/api/hotel/book/', { booking_id: bookingId, guests: [[traveller]], contact }],
      ['POST', '/api/hotel/order/', { booking_id: bookingId }],
      ['POST', '/api/hotel/booking_data/', { booking_id: bookingId }],
      ['POST', '/api/tours/finalize/', { prebook_id: seats.body.data.prebook_id }],
      ['GET', `/api/residence/reserve/detail/?reservation_id=${reservationId}`, undefined],
      ['GET', `/api/residence/reserve/time/?reservation_id=${reservationId}`, undefined],
      ['POST', '/api/residence/reserve/book/', { reservation_id: reservationId }],
      ['POST', '/api/residence/bookings/cancel/', { reservation_id: reservationId }],
    ] as const) {
      const res = await call(stack.app, method, path, sara, body);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect({ path, ok: res.body.ok }).toEqual({ path, ok: false });
    }
    // Their maker, and an agent who sees the whole agency, go on with them.
    expect((await send('/api/hotel/booking_data/', omid, { booking_id: bookingId })).body.data.booking).toMatchObject({ booking_id: bookingId });
    expect((await call(stack.app, 'GET', `/api/residence/reserve/detail/?reservation_id=${reservationId}`, owner)).status).toBe(200);
    expect((await send('/api/tours/finalize/', omid, { prebook_id: seats.body.data.prebook_id })).status).toBe(201);

    // Babak's basket is his: Leila's, and the agency's own connection's, are empty.
    expect((await post('/api/products/basket/items/', omid, { product: 1, variant: 2, quantity: 1 })).status).toBe(201);
    for (const headers of [sara, owner]) {
      const basket = await call(stack.app, 'GET', '/api/products/basket/current', headers);
      expect(basket.status).toBe(200);
      expect(basket.body.data.items).toEqual([]);
      expect((await send('/api/products/checkout/', headers, { payment_method: 'PARTNER_CREDIT' })).status).toBe(400);
    }
    const his = await call(stack.app, 'GET', '/api/products/basket/current', omid);
    expect(his.body.data.items).toHaveLength(1);
    const checkedOut = await send('/api/products/checkout/', omid, { payment_method: 'PARTNER_CREDIT' });
    expect(checkedOut.status).toBe(201);
    expect(checkedOut.body.data.created_by).toMatchObject({ type: 'user', name: 'Babak' });
  });
});

describe('operators manage users and connections (admin agency user|connection)', () => {
  /** Runs a CLI command against the admin API as the CLI would send it. */
  async function admin(argv: string[]): Promise<Reply> {
    const { command } = toCommand(argv);
    return call(stack.admin, command.method, command.path, { authorization: `Bearer ${ADMIN_TOKEN}` }, command.body);
  }

  it('adds a user and a connection acting as them, rotates and revokes it, each audited', async () => {
    const p = await adminClient(stack).createPartner({ credit_limit: '0', topup: '0' });
    const id = String(p.partner_id);
    const user = await admin(['agency', 'user', 'add', '--partner', id, '--name', 'Nima', '--email', 'nima@x.example', '--role', 'viewer']);
    expect(user.status).toBe(201);
    expect(user.body).toMatchObject({ name: 'Nima', role: 'viewer', status: 'active' });
    const made = await admin([
      'agency',
      'connection',
      'add',
      '--partner',
      id,
      '--name',
      'Nima B',
      '--interface',
      'b',
      '--rights',
      'view,search',
      '--user',
      String(user.body.id),
    ]);
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ interface: 'b', rights: ['view', 'search'], user_id: user.body.id, agency_key: expect.stringMatching(/^agk_/) });
    const b = bHeaders(made.body.agency_key);
    expect((await call(stack.app, 'GET', '/v1/hotels/bookings', b)).status).toBe(200);
    expect((await call(stack.app, 'GET', '/v1/webhooks', b)).status).toBe(403);

    expect((await admin(['agency', 'user', 'role', '--partner', id, '--user', String(user.body.id), '--role', 'finance'])).body).toMatchObject({
      role: 'finance',
    });
    // A finance user's connection keeps only what finance holds of its rights: view, not search.
    expect((await call(stack.app, 'GET', '/v1/hotels/search?city=1', b)).status).toBe(403);
    const rotated = await admin(['agency', 'connection', 'rotate', '--partner', id, '--connection', String(made.body.id)]);
    expect((await call(stack.app, 'GET', '/v1/hotels/bookings', b)).status).toBe(401);
    expect((await call(stack.app, 'GET', '/v1/hotels/bookings', bHeaders(rotated.body.agency_key))).status).toBe(200);
    expect((await admin(['agency', 'connection', 'revoke', '--partner', id, '--connection', String(made.body.id)])).body).toMatchObject({ status: 'revoked' });
    expect((await admin(['agency', 'connection', 'list', '--partner', id])).body.connections.map((k: { name: string }) => k.name)).toEqual([
      'Interface A',
      'Interface B',
      'Nima B',
    ]);
    expect((await admin(['agency', 'user', 'list', '--partner', id])).body.users).toHaveLength(1);
    const audit = await adminClient(stack).get(`/admin/audit?target=partners/${id}/`);
    expect(audit.status).toBe(200);
    expect(JSON.stringify(audit.body)).toMatch(/connections\/[0-9]+\/revoke/);

    expect((await admin(['agency', 'user', 'add', '--partner', id, '--name', 'X', '--email', 'bad', '--role', 'viewer'])).status).toBe(400);
    expect((await admin(['agency', 'user', 'deactivate', '--partner', id, '--user', '987654'])).status).toBe(404);
    expect(() => toCommand(['agency', 'user', 'fly', '--partner', id])).toThrow(/agency user takes/);
  });
});
