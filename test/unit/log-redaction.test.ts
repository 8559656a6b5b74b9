import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/db/client';
import { addLogDestination, logError, logger } from '../../src/platform/log';

/** Logs carry no personal data or secrets: not in fields, not in errors, not in a database error's text. */

const PERSONAL = ['Sara', 'Ahmadi', '0012345679', 'P12345678', 'sara@example.com', '+989121234567', '1990-02-01', 's3cr3t-value', 'Valiasr'];

function capture(): { lines: string[]; stop: () => void } {
  const lines: string[] = [];
  const stop = addLogDestination(
    new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    }) as never,
  );
  return { lines, stop };
}

describe('log redaction', () => {
  it('replaces personal and secret fields wherever they sit in a logged object', () => {
    const { lines, stop } = capture();
    try {
      logger.info(
        {
          guest_name: 'Sara Ahmadi',
          booking: { lead_guest: { first_name: 'Sara', national_id: '0012345679' }, contact: { email: 'sara@example.com', phone_number: '+989121234567' } },
          input: { leadGuest: { passportNumber: 'P12345678' }, applicant: { birth_date: '1990-02-01' } },
          headers: { 'x-api-secret': 's3cr3t-value', authorization: 'Bearer s3cr3t-value' },
          config: { WEBHOOK_SECRETS_KEY: 's3cr3t-value', WEBHOOK_SECRETS_PREVIOUS_KEYS: 's3cr3t-value' },
          order: { delivery_address: { street: 'Valiasr 1' }, id: 42 },
        },
        'a request',
      );
    } finally {
      stop();
    }
    const text = lines.join('');
    for (const value of PERSONAL) expect(text).not.toContain(value);
    expect(text).toContain('[redacted]');
    expect(JSON.parse(lines[0]!).order.id).toBe(42); // what is not personal stays
  });

  it('logs a failed query by its SQLSTATE and schema names, without the parameters drizzle puts in its message', async () => {
    const database = await openDatabase({});
    const { lines, stop } = capture();
    try {
      await database.db.execute(sql`create table guests_probe (id int primary key, name text not null, born date)`);
      const err = await database.db.execute(sql`insert into guests_probe values (1, ${'Sara Ahmadi 0012345679'}, ${'1990-02-30'})`).catch((e: unknown) => e);
      expect(String((err as Error).message)).toContain('Sara Ahmadi'); // what would have been logged
      logError('unhandled error on Interface A', err);
      logError('an error whose text names a guest', new Error('no seat for sara@example.com, phone +989121234567'));
    } finally {
      stop();
      await database.close();
    }
    const [dbLine, textLine] = lines.map((l) => JSON.parse(l));
    expect(dbLine.err).toMatchObject({ type: 'DatabaseError', kind: 'invalid_data', sqlstate: expect.stringMatching(/^22/) });
    expect(textLine.err.message).toBe('no seat for [redacted], phone [redacted]');
    for (const value of PERSONAL) expect(lines.join('')).not.toContain(value);
  });
});
