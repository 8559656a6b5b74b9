/**
 * Interface B with the typed client: find a refundable room and book it (201 once the
 * wallet was debited and the hotel confirmed), then cancel it. Run against `npm start`:
 *
 *   AGENCY_KEY=agk_… node --import tsx scripts/examples/book-hotel.ts [http://127.0.0.1:8080]
 *
 * It imports only the client (src/client), as an agency's code would. `npm test` runs it
 * (test/integration/client-examples.test.ts).
 */
import { agencyClient, type AgencyClient } from '../../src/client';

const day = (fromToday: number) => new Date(Date.now() + fromToday * 86_400_000).toISOString().slice(0, 10);

export async function bookHotel(api: AgencyClient, opts: { city: string; idempotencyKey: string; guestEmail: string }) {
  const stay = { check_in: day(30), check_out: day(32) };
  const search = await api.GET('/hotels/search', { params: { query: { city: opts.city, ...stay, guests: 2, stars: 3 } } });
  if (!search.data) throw new Error(`search: ${search.response.status} ${JSON.stringify(search.error)}`);
  const hotel = search.data.results.find((h) => h.rooms.some((r) => r.refundable));
  const room = hotel?.rooms.find((r) => r.refundable);
  if (!hotel || !room) throw new Error(`no refundable room in ${opts.city}`);

  const booked = await api.POST('/hotels/bookings', {
    params: { header: { 'idempotency-key': opts.idempotencyKey } },
    body: { hotel_id: hotel.hotel_id, room_id: room.room_id, guest_name: 'Sara Ahmadi', guest_email: opts.guestEmail, ...stay, guests: 2 },
  });
  if (!booked.data) throw new Error(`book: ${booked.response.status} ${JSON.stringify(booked.error)}`);

  const cancelled = await api.DELETE('/hotels/bookings/{booking_id}', { params: { path: { booking_id: booked.data.booking_id } } });
  if (!cancelled.data) throw new Error(`cancel: ${cancelled.response.status} ${JSON.stringify(cancelled.error)}`);
  return { hotel: hotel.name, room: room.name, booking: booked.data, bookedStatus: booked.response.status, cancellation: cancelled.data };
}

if (require.main === module) {
  const api = agencyClient(process.argv[2] ?? 'http://127.0.0.1:8080', process.env.AGENCY_KEY ?? '');
  bookHotel(api, { city: process.env.CITY ?? 'shiraz', idempotencyKey: `example-${Date.now()}`, guestEmail: 'ops@acme.example' })
    .then((r) => console.log(JSON.stringify(r, null, 2)))
    .catch((err: Error) => {
      console.error(err.message);
      process.exit(1);
    });
}
