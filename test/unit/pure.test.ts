import net from 'node:net';
import { grpcCompression } from '../../src/temporal/connection';
import { startDevServer } from '../../src/temporal/dev-server';
import { loadConfig } from '../../src/config';
import { API_KEY_PATTERN, digest, matchesDigest, newAgencyKey, newApiKey, newApiSecret } from '../../src/domain/credentials';
import { isStorableId, MAX_ID } from '../../src/domain/ids';
import { parsePage } from '../../src/http/partner/paging';
import { withReason } from '../../workflows/messages';
import { payWorkflowId } from '../../workflows/pay.types';

describe('parsePage', () => {
  it('defaults to 1 and accepts positive integers', () => {
    expect(parsePage(undefined)).toBe(1);
    expect(parsePage('')).toBe(1);
    expect(parsePage('3')).toBe(3);
  });
  it.each(['0', '-1', 'abc', '1.5', '1e3'])('refuses %p', (raw) => {
    expect(() => parsePage(raw)).toThrow(/^page: /);
  });
});

describe('withReason', () => {
  it('quotes a reason that tells something more, and leaves out one that only repeats', () => {
    expect(withReason('the hotel refused the cancellation', 'the stay starts in 2 days')).toBe(
      'the hotel refused the cancellation (the stay starts in 2 days)',
    );
    expect(withReason('the hotel refused the cancellation', 'the hotel refused the cancellation')).toBe('the hotel refused the cancellation');
    expect(withReason('the hotel refused the cancellation', 'The hotel refused the cancellation.')).toBe('the hotel refused the cancellation');
    expect(withReason('the airline refused the refund', 'refused the refund')).toBe('the airline refused the refund');
    expect(withReason('the debit for order 4 failed', '')).toBe('the debit for order 4 failed');
  });
});

describe('credentials', () => {
  it('makes 64-hex API keys and distinct 256-bit secrets', () => {
    expect(newApiKey()).toMatch(API_KEY_PATTERN);
    expect(newApiSecret()).not.toBe(newApiSecret());
    expect(newAgencyKey()).toMatch(/^agk_[A-Za-z0-9_-]{43}$/);
  });
  it('matches a secret only against its own digest', () => {
    const secret = newApiSecret();
    expect(matchesDigest(secret, digest(secret))).toBe(true);
    expect(matchesDigest(`${secret}x`, digest(secret))).toBe(false);
    expect(matchesDigest(secret, 'not-a-digest')).toBe(false);
  });
});

describe('ids', () => {
  it('knows which numbers an int4 id column can hold', () => {
    expect(isStorableId(1)).toBe(true);
    expect(isStorableId(MAX_ID)).toBe(true);
    expect(isStorableId(MAX_ID + 1)).toBe(false);
    expect(isStorableId(0)).toBe(false);
  });
});

describe('payWorkflowId', () => {
  it('derives the payment identity from the key, or from the order without one', () => {
    expect(payWorkflowId(7, { idempotencyKey: 'abc', orderId: 3 })).toBe('pay:p7:key:abc');
    expect(payWorkflowId(7, { orderId: 3 })).toBe('pay:p7:order:3');
    expect(payWorkflowId(7, { idempotencyKey: 'order:3', orderId: 3 })).not.toBe(payWorkflowId(7, { orderId: 3 }));
  });
});

describe('loadConfig', () => {
  it('gives npm start working defaults', () => {
    const cfg = loadConfig({}, { sandbox: true });
    expect(cfg).toMatchObject({ PORT: 8080, ADMIN_PORT: 8081, ADMIN_HOST: '127.0.0.1', PAY_WAIT_MS: 25000, CURRENCY: 'IRT', SANDBOX: true });
    expect(cfg.DATABASE_URL).toBeUndefined();
  });
  it('reads booleans and numbers, and keeps sandbox off by default for production processes', () => {
    expect(loadConfig({ SANDBOX: 'false' }, { sandbox: true }).SANDBOX).toBe(false);
    expect(loadConfig({}).SANDBOX).toBe(false);
    expect(loadConfig({ PORT: '9000', PAY_WAIT_MS: '100' })).toMatchObject({ PORT: 9000, PAY_WAIT_MS: 100 });
  });
  it('stops with a message naming each bad variable', () => {
    expect(() => loadConfig({ PORT: 'eighty', CURRENCY: 'toman', DATABASE_URL: 'nope' })).toThrow(/PORT[\s\S]*DATABASE_URL|PORT[\s\S]*CURRENCY/);
    expect(() => loadConfig({ ADMIN_TOKEN: 'short' })).toThrow(/ADMIN_TOKEN/);
  });
  it('reads the finalize attempt budget, per service, within 1..10', () => {
    expect(loadConfig({})).toMatchObject({ FINALIZE_ATTEMPTS: 5, FINALIZE_ATTEMPTS_BY_SERVICE: {} });
    expect(loadConfig({ FINALIZE_ATTEMPTS: '3', FINALIZE_ATTEMPTS_BY_SERVICE: 'flight:8, product:2' })).toMatchObject({
      FINALIZE_ATTEMPTS: 3,
      FINALIZE_ATTEMPTS_BY_SERVICE: { flight: 8, product: 2 },
    });
    expect(() => loadConfig({ FINALIZE_ATTEMPTS: '11' })).toThrow(/FINALIZE_ATTEMPTS/);
    expect(() => loadConfig({ FINALIZE_ATTEMPTS_BY_SERVICE: 'train:3' })).toThrow(/"train:3" is not <service>:<attempts>/);
    expect(() => loadConfig({ FINALIZE_ATTEMPTS_BY_SERVICE: 'hotel:0' })).toThrow(/FINALIZE_ATTEMPTS_BY_SERVICE/);
  });

  it("compresses the worker's gRPC only to a Temporal on another machine", () => {
    for (const local of ['127.0.0.1:7233', '127.8.9.10:17233', 'localhost:7233', '[::1]:7233']) expect(grpcCompression(local)).toBe('none');
    for (const remote of ['10.0.0.5:7233', 'temporal-frontend:7233', 'my.tmprl.cloud:7233', '127.0.0.1.example.com:7233'])
      expect(grpcCompression(remote)).toBe('gzip');
  });

  it('has no setting for what is fixed behaviour: the dev server tuning and the gRPC compression', () => {
    const settings = Object.keys(loadConfig({}));
    for (const gone of ['TEMPORAL_GRPC_COMPRESSION', 'TEMPORAL_DEV_DYNAMIC_CONFIG', 'TEMPORAL_DEV_SQLITE_PRAGMAS', 'BENCH_BARE_PORT'])
      expect(settings).not.toContain(gone);
  });
});

describe('startDevServer', () => {
  it('refuses a port somebody else already listens on, instead of using their server', async () => {
    const other = net.createServer();
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const { port } = other.address() as net.AddressInfo;
    try {
      await expect(startDevServer({ cli: '/nonexistent/temporal', port, uiPort: null, namespace: 'default', log: () => undefined })).rejects.toThrow(
        new RegExp(`127\\.0\\.0\\.1:${port} is already in use.*TEMPORAL_ADDRESS`),
      );
    } finally {
      other.close();
    }
  });
});
