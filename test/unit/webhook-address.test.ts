import { loadConfig } from '../../src/config';
import {
  addressRange,
  checkWebhookTarget,
  checkWebhookUrl,
  guardedLookup,
  parseAllowedHosts,
  WebhookUrlRefused,
  type WebhookUrlPolicy,
} from '../../src/platform/webhook-address';

const policy = (over: Partial<WebhookUrlPolicy> = {}): WebhookUrlPolicy => ({ sandbox: true, allowedPrivateHosts: new Set(), ...over });

/** The rule a URL is refused by at registration (the name resolved by `answers`), or null when it is taken. */
async function ruleOf(url: string, p: WebhookUrlPolicy, answers: string[] = ['93.184.215.14']) {
  try {
    await checkWebhookTarget(new URL(url), { ...p, resolve: async () => answers }, 1000);
    return null;
  } catch (err) {
    if (!(err instanceof WebhookUrlRefused)) throw err;
    return err.rule;
  }
}

describe('where webhook endpoints may point', () => {
  it('takes public unicast addresses only', () => {
    for (const a of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111']) expect([a, addressRange(a)]).toEqual([a, null]);
    for (const [a, range] of [
      ['127.0.0.1', 'loopback'],
      ['10.0.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.0.1', 'private'],
      ['169.254.169.254', 'linkLocal'],
      ['100.100.100.200', 'carrierGradeNat'],
      ['0.0.0.0', 'unspecified'],
      ['224.0.0.251', 'multicast'],
      ['255.255.255.255', 'broadcast'],
      ['192.0.0.192', 'reserved'],
      ['::1', 'loopback'],
      ['::', 'unspecified'],
      ['fe80::1', 'linkLocal'],
      ['fd00:ec2::254', 'uniqueLocal'],
      ['ff02::1', 'multicast'],
      ['::ffff:10.0.0.1', 'private'],
      ['64:ff9b::a00:1', 'rfc6052'],
    ]) {
      expect([a, addressRange(a!)]).toEqual([a, range]);
    }
  });

  it('requires https outside the sandbox, and allows http in it', () => {
    expect(() => checkWebhookUrl(new URL('http://agency.example/'), policy({ sandbox: false }))).toThrow('must use https');
    expect(() => checkWebhookUrl(new URL('http://agency.example/'), policy())).not.toThrow();
    // An allowed host does not lift the scheme rule.
    expect(() => checkWebhookUrl(new URL('http://127.0.0.1/'), policy({ sandbox: false, allowedPrivateHosts: parseAllowedHosts('127.0.0.1') }))).toThrow(
      'must use https',
    );
  });

  it('refuses literal private addresses, metadata names and names resolving to private addresses; allows the hosts an operator named', async () => {
    expect(await ruleOf('https://169.254.169.254/latest/meta-data/', policy())).toBe('address');
    expect(await ruleOf('https://[::1]/', policy())).toBe('address');
    expect(await ruleOf('https://metadata.google.internal/', policy())).toBe('address');
    expect(await ruleOf('https://rebind.example/', policy(), ['93.184.215.14', '10.0.0.7'])).toBe('address');
    expect(await ruleOf('https://agency.example/', policy())).toBeNull();
    expect(await ruleOf('https://agency.example/', policy(), [])).toBe('unresolved');
    const allowed = policy({ allowedPrivateHosts: parseAllowedHosts(' 127.0.0.1 , Receiver.Internal.,[::1]') });
    expect(await ruleOf('http://127.0.0.1:9000/', allowed)).toBeNull();
    expect(await ruleOf('http://receiver.internal/', allowed, ['10.0.0.7'])).toBeNull();
    expect(await ruleOf('http://[0:0::1]/', allowed)).toBeNull();
    // Named by its host as written: another name for the same address is not allowed.
    expect(await ruleOf('http://localhost/', allowed, ['127.0.0.1'])).toBe('address');
  });

  it('gives up resolving after the bound, as a refusal', async () => {
    const never = policy({ resolve: () => new Promise<string[]>(() => undefined) });
    await expect(checkWebhookTarget(new URL('https://slow.example/'), never, 50)).rejects.toMatchObject({
      rule: 'unresolved',
      message: 'has a host that could not be resolved',
    });
  });

  it('refuses at connect time a name that answers a private address, saying which to operators', async () => {
    const answering =
      (address: string) => (_host: string, _options: object, callback: (err: Error | null, address: { address: string; family: number }[]) => void) =>
        callback(null, [{ address, family: 4 }]);
    const lookup = (base: ReturnType<typeof answering>, p = policy()) =>
      new Promise((resolve, reject) =>
        guardedLookup(p, base as never)('hooks.example', { all: true }, (err, address) => (err ? reject(err) : resolve(address))),
      );
    await expect(lookup(answering('93.184.215.14'))).resolves.toEqual([{ address: '93.184.215.14', family: 4 }]);
    await expect(lookup(answering('10.0.0.7'))).rejects.toMatchObject({ rule: 'address', detail: 'hooks.example resolved to 10.0.0.7, a private address' });
    await expect(lookup(answering('10.0.0.7'), policy({ allowedPrivateHosts: parseAllowedHosts('hooks.example') }))).resolves.toHaveLength(1);
  });

  it('allows no private host by default, in the sandbox too; the replaced switch is refused with its replacement named', () => {
    expect(loadConfig({}, { sandbox: true }).WEBHOOK_ALLOWED_PRIVATE_HOSTS).toEqual(new Set());
    expect(loadConfig({ WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1,hooks.local' }).WEBHOOK_ALLOWED_PRIVATE_HOSTS).toEqual(new Set(['127.0.0.1', 'hooks.local']));
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' })).toThrow(/WEBHOOK_ALLOW_PRIVATE_URLS: is no longer read: .* WEBHOOK_ALLOWED_PRIVATE_HOSTS/);
  });
});
