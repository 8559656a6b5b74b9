/** What many tests send: a date some days from today (UTC), a booking contact, an adult Iranian traveller, one room's guests, a visa application. */
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

/** A visa application for `visaId` (an applicant, a week's travel forty days out, the usual documents). */
export const visaApplication = (visaId: number) => ({
  visa_id: visaId,
  applicant: {
    first_name: 'Reza',
    last_name: 'Karimi',
    birth_date: '1985-04-12',
    gender: 'male' as const,
    nationality: 'IR',
    passport_number: 'P12345678',
    passport_expiry_date: day(1500),
  },
  travel: { from: day(40), to: day(47) },
  documents: [
    { type: 'passport' as const, reference: 'doc-passport-1' },
    { type: 'photo' as const, reference: 'doc-photo-1' },
    { type: 'bank_statement' as const, reference: 'doc-bank-1' },
  ],
});
