import { HealthMonitor, PartUnavailableError, asUnavailable, rootMessage, unreachablePart } from '../../src/health/model';

const withCause = (message: string, cause: unknown) => Object.assign(new Error(message), { cause });
const pgError = (code: string, message = 'pg said so') => Object.assign(new Error(message), { code });
const grpcError = (code: number) => Object.assign(new Error(`${code} grpc`), { code, details: 'x', metadata: {} });

describe('which part an error says is unreachable', () => {
  it.each([
    ['a refused connection', withCause('Failed query: select 1', pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')), 'database'],
    ['a connection lost mid-query', withCause('Failed query: select 1', new Error('Connection terminated unexpectedly')), 'database'],
    ['no pool connection in time', new Error('timeout exceeded when trying to connect'), 'database'],
    ['SQLSTATE 08006', pgError('08006'), 'database'],
    ['an administrator shutdown (57P01)', pgError('57P01'), 'database'],
    ['too many connections (53300)', pgError('53300'), 'database'],
    ['gRPC UNAVAILABLE under a ServiceError', withCause('Failed to start Workflow', grpcError(14)), 'temporal'],
    ['gRPC DEADLINE_EXCEEDED', grpcError(4), 'temporal'],
    ['a refusal the gate made itself', new PartUnavailableError('worker'), 'worker'],
  ])('%s', (_name, err, part) => {
    expect(unreachablePart(err)).toBe(part);
  });

  it.each([
    ['a unique violation', pgError('23505')],
    ['a serialization failure', pgError('40001')],
    ['gRPC NOT_FOUND', grpcError(5)],
    ['gRPC INVALID_ARGUMENT', grpcError(3)],
    ['a plain bug', new TypeError('x is undefined')],
    ['not an error', 'ECONNREFUSED'],
  ])('not %s', (_name, err) => {
    expect(unreachablePart(err)).toBeNull();
    expect(asUnavailable(err)).toBe(err);
  });

  it('keeps the lost connection, not the query, as the detail', () => {
    const err = asUnavailable(withCause('Failed query: select secret from t\nparams: abc', pgError('ECONNRESET', 'read ECONNRESET')));
    expect(err).toBeInstanceOf(PartUnavailableError);
    // A connection lost under a request claims no more than that; a refusal says nothing changed.
    expect(err).toMatchObject({
      part: 'database',
      detail: 'read ECONNRESET',
      refused: false,
      message: 'the database is unreachable; the request did not complete, try again in 5 s',
    });
    expect(new PartUnavailableError('worker', undefined, true).message).toBe('no worker is running; nothing was changed, try again in 5 s');
    expect(rootMessage(new Error('alone'))).toBe('alone');
  });
});

describe('the health monitor', () => {
  it('reports a check that stops answering as down after its timeout, without starting it again meanwhile, and up once it answers', async () => {
    let calls = 0;
    let release: (() => void) | undefined;
    let hang = false;
    const monitor = new HealthMonitor(
      {
        database: () => {
          calls++;
          return hang ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();
        },
      },
      { intervalMs: 60_000, timeoutMs: 200 },
    );
    expect(monitor.report()).toMatchObject({ ok: false, checks: { database: { ok: false, detail: 'not checked yet' } }, checked_at: null });
    expect(() => monitor.require(['database'])).toThrow(PartUnavailableError);

    await monitor.round();
    expect(monitor.report()).toMatchObject({ ok: true, checks: { database: { ok: true } } });
    expect(() => monitor.require(['database', 'temporal'])).not.toThrow();

    hang = true;
    const started = Date.now();
    await monitor.round();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(monitor.report().checks.database).toEqual({ ok: false, detail: expect.stringMatching(/^no answer within \d+ ms$/) });
    expect(() => monitor.require(['database'])).toThrow('the database is unreachable');
    await monitor.round();
    expect(calls).toBe(2); // the hanging check was waited on again, not started twice

    hang = false;
    release!();
    await new Promise((r) => setImmediate(r));
    await monitor.round();
    expect(monitor.report().checks.database).toEqual({ ok: true });
  });

  it('reports the failing check’s own reason', async () => {
    const monitor = new HealthMonitor(
      { temporal: () => Promise.reject(withCause('Failed', grpcError(14))), worker: async () => 'one worker' },
      { intervalMs: 60_000, timeoutMs: 200 },
    );
    await monitor.round();
    expect(monitor.report()).toMatchObject({ ok: false, checks: { temporal: { ok: false, detail: '14 grpc' }, worker: { ok: true, detail: 'one worker' } } });
    expect(() => monitor.require(['worker'])).not.toThrow();
    expect(() => monitor.require(['temporal'])).toThrow(expect.objectContaining({ part: 'temporal', detail: '14 grpc' }));
  });
});
