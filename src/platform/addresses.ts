import net from 'node:net';

/** An IPv4 address as IPv6 writes it (`::ffff:192.0.2.1`, as a dual-stack socket reports it) becomes the IPv4 address. */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address.toLowerCase();
}

/** A set of addresses and networks: which peers are trusted proxies. */
export interface AddressSet {
  has(address: string): boolean;
  /** How it was written (comma-separated), for the logs. */
  readonly spec: string;
}

/**
 * Parses comma-separated addresses and CIDR networks (`10.0.0.0/8, 192.0.2.7, fd00::/8`);
 * null if a part is neither.
 */
export function parseAddressSet(spec: string): AddressSet | null {
  const list = new net.BlockList();
  const parts = spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const part of parts) {
    const [address = '', prefix, extra] = part.split('/');
    const family = net.isIP(address);
    if (family === 0 || extra !== undefined) return null;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) {
      list.addAddress(plainAddress(address), type);
      continue;
    }
    const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (!(bits >= 0 && bits <= (family === 4 ? 32 : 128))) return null;
    list.addSubnet(plainAddress(address), bits, type);
  }
  return {
    spec: parts.join(','),
    has: (address) => {
      const plain = plainAddress(address);
      const family = net.isIP(plain);
      return family !== 0 && list.check(plain, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/**
 * The client's address: the socket's peer; or, when that peer is a trusted proxy, the
 * right-most address of `X-Forwarded-For` that is not a trusted proxy (each proxy appends
 * the peer it saw, so what lies left of the first untrusted hop is the client's to invent).
 * A forwarded entry that is not an address ends the walk at the hop that appended it.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | undefined, trusted: AddressSet): string | undefined {
  if (peer === undefined) return undefined;
  let client = plainAddress(peer);
  if (!forwardedFor || !trusted.has(client)) return client;
  const hops = forwardedFor.split(',').map((h) => h.trim());
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = plainAddress(hops[i]!);
    if (net.isIP(hop) === 0) return client;
    client = hop;
    if (!trusted.has(hop)) return client;
  }
  return client;
}
