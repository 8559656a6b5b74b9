import fs from 'node:fs';
import path from 'node:path';
import { day } from '../support/fixtures';
import { healthy, removeDataDirs, startEngine, stopEngines } from '../support/engine-process';

/**
 * From outside, as a newcomer runs the engine (`npm start`, PGlite on disk): a flight booked
 * and paid for a traveller with a distinctive passport number, surname and e-mail address
 * leaves none of them readable anywhere in DATA_DIR (the embedded database's files and its
 * write-ahead log, the Temporal dev server's database), while the partner still reads them
 * back through the API.
 */
const PASSPORT = 'QX7Z9K4M2W';
const SURNAME = 'Quillfeatherova';
const EMAIL = 'zelda.quillfeatherova@example.org';

afterEach(async () => {
  for (const pid of await stopEngines()) process.kill(pid, 'SIGKILL');
});
afterAll(removeDataDirs);

/** Every file under `dir` that holds `needle` (as UTF-8 bytes, in any letter case). */
function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  const lower = Buffer.from(needle.toLowerCase());
  const upper = Buffer.from(needle.toUpperCase());
  const exact = Buffer.from(needle);
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const bytes = fs.readFileSync(file);
    if (bytes.includes(exact) || bytes.includes(lower) || bytes.includes(upper)) found.push(path.relative(dir, file));
  }
  return found;
}

it('keeps a traveller’s passport number, surname and e-mail out of every file the engine writes', async () => {
  const engine = await startEngine();
  await healthy(engine);
  const api = `http://127.0.0.1:${engine.ports.PORT}`;
  const adminToken = fs.readFileSync(path.join(engine.dataDir, 'admin-token'), 'utf8').trim();
  const created = await fetch(`http://127.0.0.1:${engine.ports.ADMIN_PORT}/admin/partners`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Privacy Travel', topup: '500000000' }),
  });
  expect(created.status).toBe(201);
  const partner = (await created.json()) as { api_key: string; api_secret: string };
  const post = async (route: string, body: unknown) => {
    const res = await fetch(`${api}${route}`, {
      method: 'POST',
      headers: { 'x-api-key': partner.api_key, 'x-api-secret': partner.api_secret, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
  };

  const search = await post('/api/flights/search_flights/', {
    origin: 'THR',
    destination: 'IST',
    departure_date_time: `${day(30)}T00:00:00Z`,
    adult_count: 1,
    cabin_type: 'economy',
    air_trip_type: 'one_way',
  });
  expect(search.status).toBe(200);
  const offer = (search.body.data.results as Array<{ fare_source_code: string }>)[0]!;
  const traveller = {
    first_name: 'Zelda',
    last_name: SURNAME,
    birth_date: '1988-02-03',
    gender: 'female',
    passenger_type: 'ADT',
    nationality: 'DE',
    passport_number: PASSPORT,
    passport_expiry_date: day(1500),
  };
  const booked = await post('/api/flights/air_booking/', {
    fare_source_code: offer.fare_source_code,
    traveler_info: { contact: { phone_number: '+4915112345678', email: EMAIL }, air_travelers: [traveller] },
  });
  expect(booked.status).toBe(201);
  const orderId = booked.body.data.id as number;
  const paid = await post('/api/partners/pay/', { order_id: orderId, idempotency_key: 'privacy-pay-1' });
  expect(paid.status).toBe(200);

  // The partner reads its traveller back.
  const data = await post('/api/flights/air_booking_data/', { order_id: orderId });
  expect(data.status).toBe(200);
  const booking = data.body.data.booking as { passengers: Array<{ last_name: string }>; contact: { email: string } };
  expect(booking.passengers[0]!.last_name).toBe(SURNAME);
  expect(booking.contact.email).toBe(EMAIL);

  // Everything written to disk, once the engine has stopped and flushed what it holds.
  engine.child.kill('SIGTERM');
  expect(await engine.exited).toEqual({ code: 0, signal: null });
  expect(fs.existsSync(path.join(engine.dataDir, 'pglite'))).toBe(true);
  for (const needle of [PASSPORT, SURNAME, EMAIL]) expect({ needle, files: filesHolding(engine.dataDir, needle) }).toEqual({ needle, files: [] });
  // The scan finds what is stored in the clear: the booking's PNR is.
  expect(filesHolding(path.join(engine.dataDir, 'pglite'), booked.body.data.pnr as string).length).toBeGreaterThan(0);
});
