/** What many tests send: a date some days from today (UTC), a booking contact, an adult Iranian traveller, one room's guests. */
export const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

export const contact = { phone_number: '+989121234567', email: 'ops@acme.example' };

export const traveller = {
  first_name: 'Reza',
  last_name: 'Karimi',
  birth_date: '1985-04-12',
  gender: 'male' as const,
  passenger_type: 'ADT' as const,
  nationality: 'IR',
  national_id: '0012345679',
};

export const roomGuests = [[{ first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', national_id: '0012345679' }]];
