import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook endpoint may point. A partner's URL must not reach into the engine's own
 * network: loopback, private, link-local, unique-local, carrier-grade NAT, unspecified,
 * multicast, reserved and cloud metadata addresses are refused, in the sandbox too, unless
 * an operator named the host in WEBHOOK_ALLOWED_PRIVATE_HOSTS. The same rules are applied
 * when an endpoint is registered (its name resolved once, within a bound) and each time it
 * is connected to (the name resolved again by the connection, so a name that now answers
 * another address is caught where it would be used).
 */
export interface WebhookUrlPolicy {
  /** Whether plain http is allowed: in the sandbox only; elsewhere https is required. */
  sandbox: boolean;
  /** Hosts as written in URLs (names lower-case, addresses in canonical form) that may be private. */
  allowedPrivateHosts: ReadonlySet<string>;
  /** How a registration resolves a name into addresses (default: the system's resolver, as connections do). */
  resolve?: (host: string) => Promise<string[]>;
}

/** Which rule refused a URL. */
export type WebhookUrlRule = 'scheme' | 'address' | 'unresolved';

/**
 * A URL the policy refuses. `message` names the rule only, for the partner; `detail` says
 * what was found (the resolved address, the range), for operators.
 */
export class WebhookUrlRefused extends Error {
  constructor(
    readonly rule: WebhookUrlRule,
    readonly detail: string,
  ) {
    super(RULE_MESSAGES[rule]);
    this.name = 'WebhookUrlRefused';
  }
}

/** What each rule says to a partner: never an address, never what the target answered. */
export const RULE_MESSAGES: Record<WebhookUrlRule, string> = {
  scheme: 'must use https',
  address: 'must not point to a loopback, private, link-local, cloud metadata or other non-public address',
  unresolved: 'has a host that could not be resolved',
};

/** Names of cloud metadata services: refused whatever they resolve to. */
const METADATA_HOSTS = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);

/** A host as the policy compares it: lower-case, no brackets or trailing dot, an address in canonical form. */
export function canonicalHost(host: string): string {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  return net.isIP(bare) ? ipaddr.parse(bare).toString() : bare;
}

/** WEBHOOK_ALLOWED_PRIVATE_HOSTS: comma-separated host names or addresses. */
export const parseAllowedHosts = (text: string): Set<string> =>
  new Set(
    text
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean)
      .map(canonicalHost),
  );

/**
 * Why an address may not be connected to (the name of its range), or null for a public
 * unicast address. IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
 */
export function addressRange(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return 'unparseable';
  }
  const range = parsed.range();
  return range === 'unicast' ? null : range;
}

const isAllowed = (host: string, policy: WebhookUrlPolicy) => policy.allowedPrivateHosts.has(canonicalHost(host));

/**
 * The checks that need no resolution: the scheme, a literal address, a metadata name.
 * Throws WebhookUrlRefused.
 */
export function checkWebhookUrl(url: URL, policy: WebhookUrlPolicy): void {
  if (url.protocol !== 'https:' && !(policy.sandbox && url.protocol === 'http:')) {
    throw new WebhookUrlRefused('scheme', `${url.protocol} is not allowed${policy.sandbox ? '' : ' outside the sandbox (SANDBOX off)'}`);
  }
  if (isAllowed(url.hostname, policy)) return;
  const host = canonicalHost(url.hostname);
  if (net.isIP(host)) {
    const range = addressRange(host);
    if (range) throw new WebhookUrlRefused('address', `${host} is a ${range} address`);
  } else if (METADATA_HOSTS.has(host)) {
    throw new WebhookUrlRefused('address', `${host} is a cloud metadata service`);
  }
}

/**
 * At registration: checkWebhookUrl, then the host's name resolved (within `timeoutMs`) and
 * every address it answers checked. Throws WebhookUrlRefused.
 */
export async function checkWebhookTarget(url: URL, policy: WebhookUrlPolicy, timeoutMs: number): Promise<void> {
  checkWebhookUrl(url, policy);
  const host = canonicalHost(url.hostname);
  if (isAllowed(host, policy) || net.isIP(host)) return;
  const resolve = policy.resolve ?? systemResolve;
  let timer: NodeJS.Timeout | undefined;
  let addresses: string[];
  try {
    addresses = await Promise.race([
      resolve(host),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (err) {
    throw new WebhookUrlRefused('unresolved', `${host} could not be resolved: ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
  if (addresses.length === 0) throw new WebhookUrlRefused('unresolved', `${host} resolved to no address`);
  for (const address of addresses) {
    const range = addressRange(address);
    if (range) throw new WebhookUrlRefused('address', `${host} resolved to ${address}, a ${range} address`);
  }
}

/** Every address the system's resolver answers for a name (what a connection would try). */
const systemResolve = async (host: string) => (await dns.promises.lookup(host, { all: true })).map((a) => a.address);

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
type Lookup = (host: string, options: dns.LookupOptions, callback: LookupCallback) => void;

/**
 * The `lookup` of a delivery's connection: the name resolved as Node would, then refused
 * (WebhookUrlRefused) if any address it answers is not public, unless the host is allowed.
 * A literal address never comes here: checkWebhookUrl judges it.
 */
export function guardedLookup(policy: WebhookUrlPolicy, base: Lookup = dns.lookup as unknown as Lookup): Lookup {
  return (host, options, callback) => {
    if (isAllowed(host, policy)) return base(host, options, callback);
    base(host, options, (err, address, family) => {
      if (err) return callback(err, address, family);
      const found = typeof address === 'string' ? [{ address, family: family ?? 0 }] : address;
      for (const a of found) {
        const range = addressRange(a.address);
        if (range) return callback(new WebhookUrlRefused('address', `${host} resolved to ${a.address}, a ${range} address`), address, family);
      }
      callback(null, address, family);
    });
  };
}
