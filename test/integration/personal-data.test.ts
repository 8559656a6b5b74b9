import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { eq, sql } from 'drizzle-orm';
import { toCommand } from '../../src/cli/admin';
import { rowsOf } from '../../src/db/client';
import { usePersonalDataKeys } from '../../src/db/personal-data';
import { flightBookings, operatorActions } from '../../src/db/schema';
import { ERASED, travellerDigest } from '../../src/domain/privacy';
import { listen } from '../../src/platform/listen';
import { newSecretKey, parseSecretKey, secretBox } from '../../src/platform/secret-box';
import { personalDataRound } from '../../worker/personal-data-upkeep';
import { adminClient, newPartner, operatorToken } from '../support/clients';
import { contact, day } from '../support/fixtures';
import { type TestStack, useStack } from '../support/stack';

/**
 * Travellers' personal data over its life (docs/security.md): sealed in its columns and
 * read back in the clear through the API; sealed again under a new key while the key is
 * changed; erased on an operator's order (by order, or by a traveller's passport number),
 * audited without the identifier; erased by the workers' upkeep once the trip is long over.
 */
let stack: TestStack;
useStack((s) => (stack = s));

const DEPARTURE = day(30);

function traveller(lastName: string, passport: string) {
  return {
    first_name: 'Zelda',
    last_name: lastName,
    birth_date: '1988-02-03',
    gender: 'female' as const,
    passenger_type: 'ADT' as const,
    nationality: 'DE',
    passport_number: passport,
    passport_expiry_date: day(1500),
  };
}

/** A flight booked (not paid) for one traveller; its order id. */
async function bookFlight(client: Awaited<ReturnType<typeof newPartner>>['client'], lastName: string, passport: string): Promise<number> {
  const search = await client.POST('/flights/search_flights/', {
    body: { origin: 'THR', destination: 'IST', departure_date_time: `${DEPARTURE}T00:00:00Z`, adult_count: 1, cabin_type: 'economy', air_trip_type: 'one_way' },
  });
  const offer = search.data!.data.results[0]!;
  const booked = await client.POST('/flights/air_booking/', {
    body: { fare_source_code: offer.fare_source_code, traveler_info: { contact, air_travelers: [traveller(lastName, passport)] } },
  });
  expect(booked.response.status).toBe(201);
  return booked.data!.data.id;
}

/** The booking's personal columns as stored: the text PostgreSQL holds. */
async function stored(orderId: number): Promise<{ travelers: string; contact: string }> {
  const [row] = rowsOf<{ travelers: string; contact: string }>(
    await stack.db.execute(sql`SELECT travelers::text AS travelers, contact::text AS contact FROM flight_bookings WHERE order_id = ${orderId}`),
  );
  return row!;
}

async function passengersOf(client: Awaited<ReturnType<typeof newPartner>>['client'], orderId: number) {
  const data = await client.POST('/flights/air_booking_data/', { body: { order_id: orderId } });
  expect(data.response.status).toBe(200);
  return data.data!.data.booking!;
}

describe('travellers’ personal data', () => {
  it('is stored sealed for its column, and read back in the clear by its partner', async () => {
    const { client } = await newPartner(stack);
    const orderId = await bookFlight(client, 'Sealedova', 'SEAL12345');
    const raw = await stored(orderId);
    expect(raw.travelers).toMatch(/^"sealed:v2:[0-9a-f]{8}:[A-Za-z0-9_-]+"$/);
    expect(raw.contact).toMatch(/^"sealed:v2:/);
    expect(raw.travelers).not.toContain('Sealedova');
    const booking = await passengersOf(client, orderId);
    expect(booking.passengers[0]).toMatchObject({ last_name: 'Sealedova', birth_date: '1988-02-03' });
    expect(booking.contact).toEqual(contact);
  });

  it('is sealed again under a new key, in the clear ones too, and read all the while', async () => {
    const { client } = await newPartner(stack);
    const orderId = await bookFlight(client, 'Rotatova', 'ROT123456');
    const before = await stored(orderId);
    // A row written before its column was sealed: the contact in the clear.
    await stack.db.execute(
      sql`UPDATE flight_bookings SET contact = ${JSON.stringify({ phone_number: '+4915100000000', email: 'clear@example.org' })}::jsonb WHERE order_id = ${orderId}`,
    );
    expect((await passengersOf(client, orderId)).contact).toEqual({ phone_number: '+4915100000000', email: 'clear@example.org' });

    const oldKeyId = before.travelers.slice('"sealed:v2:'.length, '"sealed:v2:'.length + 8);
    const next = secretBox(parseSecretKey(newSecretKey())!);
    usePersonalDataKeys(next);
    await personalDataRound(stack.db, 90);
    const after = await stored(orderId);
    expect(after.travelers.startsWith(`"sealed:v2:${next.keyId}:`)).toBe(true);
    expect(after.contact.startsWith(`"sealed:v2:${next.keyId}:`)).toBe(true);
    expect(next.keyId).not.toBe(oldKeyId);
    const booking = await passengersOf(client, orderId);
    expect(booking.passengers[0]!.last_name).toBe('Rotatova');
    expect(booking.contact.email).toBe('clear@example.org');
    // Nothing left under another key: a second round seals nothing more.
    const [count] = rowsOf<{ n: number }>(
      await stack.db.execute(sql`SELECT count(*)::int AS n FROM flight_bookings WHERE travelers::text NOT LIKE ${`"sealed:v2:${next.keyId}:%`}`),
    );
    expect(count!.n).toBe(0);
  });

  it('is erased on an operator’s order, by order or by passport number, audited without the identifier', async () => {
    const admin = adminClient(stack);
    const { client } = await newPartner(stack);
    const byOrder = await bookFlight(client, 'Erasova', 'ERA123456');
    const byPassport = await bookFlight(client, 'Passportova', 'PAS987654');
    const kept = await bookFlight(client, 'Keptova', 'KEP555555');

    const first = await admin.post('/admin/privacy/erase', { order_id: byOrder, reason: 'the traveller asked (ticket 42)' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ target: `orders/${byOrder}`, bookings: 1, erased: { flight_bookings: 1 } });
    const second = await admin.post('/admin/privacy/erase', { traveller: 'pas987654', reason: 'the traveller asked (ticket 43)' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ target: `travellers/${travellerDigest('PAS987654')}`, bookings: 1 });

    for (const orderId of [byOrder, byPassport]) {
      const booking = await passengersOf(client, orderId);
      expect(booking.passengers[0]).toMatchObject({ first_name: ERASED, last_name: ERASED, birth_date: ERASED, passenger_type: 'ADT', nationality: 'DE' });
      expect(booking.contact).toEqual({ phone_number: ERASED, email: ERASED });
      // The booking itself stays: its PNR and order, for the books.
      expect(booking.pnr).toEqual(expect.any(String));
      const [row] = await stack.db.select().from(flightBookings).where(eq(flightBookings.orderId, orderId));
      expect(row!.personalDataErasedAt).toBeInstanceOf(Date);
    }
    expect((await passengersOf(client, kept)).passengers[0]!.last_name).toBe('Keptova');

    const audit = await stack.db.select().from(operatorActions).where(eq(operatorActions.action, 'privacy/erase'));
    expect(audit.map((a) => a.target)).toEqual(expect.arrayContaining([`orders/${byOrder}`, `travellers/${travellerDigest('PAS987654')}`]));
    expect(JSON.stringify(audit)).not.toMatch(/PAS987654/i);
    // Asked again, nothing is left to erase.
    expect((await admin.post('/admin/privacy/erase', { order_id: byOrder, reason: 'asked twice' })).body).toMatchObject({ bookings: 0 });
  });

  it('refuses a request naming neither or both, without a reason, or an order with no travellers', async () => {
    const admin = adminClient(stack);
    const { client } = await newPartner(stack);
    const orderId = await bookFlight(client, 'Refusova', 'REF123456');
    for (const [body, status, message] of [
      [{ reason: 'because' }, 400, /order_id or traveller/],
      [{ order_id: orderId, traveller: 'REF123456', reason: 'because' }, 400, /order_id or traveller/],
      [{ order_id: orderId }, 400, /reason/],
      [{ traveller: 'x', reason: 'because' }, 400, /traveller/],
      [{ order_id: 987654, reason: 'because' }, 404, /order 987654/],
    ] as const) {
      const res = await admin.post('/admin/privacy/erase', body);
      expect({ body, status: res.status }).toEqual({ body, status });
      expect(res.body.error).toMatch(message);
    }
    expect((await passengersOf(client, orderId)).passengers[0]!.last_name).toBe('Refusova');
  });

  it('is erased by the upkeep once the trip ended longer ago than the retention, and kept before', async () => {
    const { client } = await newPartner(stack);
    const orderId = await bookFlight(client, 'Retainova', 'RET123456');
    await personalDataRound(stack.db, 90);
    expect((await passengersOf(client, orderId)).passengers[0]!.last_name).toBe('Retainova');
    // 91 days after the flight lands.
    await personalDataRound(stack.db, 90, Date.parse(`${DEPARTURE}T00:00:00Z`) + 92 * 86_400_000);
    expect((await passengersOf(client, orderId)).passengers[0]!.last_name).toBe(ERASED);
  });

  it('is erased from the admin CLI, as an operator types it', async () => {
    expect(toCommand(['privacy', 'erase', '--order', '7', '--reason', 'asked'])).toEqual({
      json: false,
      command: { method: 'POST', path: '/admin/privacy/erase', body: { order_id: 7, reason: 'asked' } },
    });
    expect(() => toCommand(['privacy', 'erase', '--reason', 'asked'])).toThrow(/--order ID or --traveller/);
    expect(() => toCommand(['privacy', 'erase', '--order', '7', '--traveller', 'X1234567', '--reason', 'asked'])).toThrow(/--order ID or --traveller/);
    expect(() => toCommand(['privacy', 'erase', '--traveller', 'X1234567'])).toThrow(/--reason is required/);

    const { client } = await newPartner(stack);
    const orderId = await bookFlight(client, 'Clieva', 'CLI123456');
    const server = await listen(stack.admin.fetch, 0, '127.0.0.1');
    const token = await operatorToken(stack, 'privacy-officer');
    try {
      const out = await promisify(execFile)(
        process.execPath,
        [
          '--import',
          'tsx',
          path.join(__dirname, '../../src/cli/admin.ts'),
          'privacy',
          'erase',
          '--traveller',
          'CLI123456',
          '--reason',
          'data subject request',
          '--json',
        ],
        { env: { ...process.env, ADMIN_URL: server.url, ADMIN_TOKEN: token } },
      );
      expect(JSON.parse(out.stdout)).toMatchObject({ bookings: 1, erased: { flight_bookings: 1 } });
    } finally {
      await server.close();
    }
    expect((await passengersOf(client, orderId)).passengers[0]!.last_name).toBe(ERASED);
    const audit = await stack.db.select().from(operatorActions).where(eq(operatorActions.operator, 'privacy-officer'));
    expect(audit.map((a) => [a.action, a.reason])).toEqual([['privacy/erase', 'data subject request']]);
  });
});
