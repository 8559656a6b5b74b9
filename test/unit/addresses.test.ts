import { clientAddress, parseAddressSet, plainAddress } from '../../src/platform/addresses';

/** The client address the limits before authentication count by (TRUSTED_PROXIES, X-Forwarded-For). */
describe('trusted proxies and the client address', () => {
  const proxies = parseAddressSet('10.0.0.0/8, 192.0.2.7, fd00::/8')!;

  it('parses addresses and CIDR networks of both families, and refuses anything else', () => {
    expect(proxies.has('10.200.3.4')).toBe(true);
    expect(proxies.has('192.0.2.7')).toBe(true);
    expect(proxies.has('192.0.2.8')).toBe(false);
    expect(proxies.has('fd12::1')).toBe(true);
    expect(proxies.has('::ffff:10.1.1.1')).toBe(true);
    expect(proxies.has('not-an-address')).toBe(false);
    expect(parseAddressSet('')!.has('127.0.0.1')).toBe(false);
    for (const bad of ['10.0.0.0/33', 'fd00::/129', '10.0.0.0/8/1', 'example.com', '10.0.0.0/x', '10.0.0.256']) expect(parseAddressSet(bad)).toBeNull();
  });

  it('is the peer unless the peer is a trusted proxy; then the right-most untrusted hop of X-Forwarded-For', () => {
    expect(clientAddress('198.51.100.1', '203.0.113.9', proxies)).toBe('198.51.100.1');
    expect(clientAddress('::ffff:198.51.100.1', undefined, proxies)).toBe('198.51.100.1');
    expect(clientAddress('10.0.0.1', undefined, proxies)).toBe('10.0.0.1');
    expect(clientAddress('10.0.0.1', '203.0.113.9', proxies)).toBe('203.0.113.9');
    // What the client wrote left of its own address is not believed.
    expect(clientAddress('10.0.0.1', '1.2.3.4, 203.0.113.9', proxies)).toBe('203.0.113.9');
    // Through a chain of trusted proxies.
    expect(clientAddress('10.0.0.1', '1.2.3.4, 203.0.113.9, 192.0.2.7, 10.3.3.3', proxies)).toBe('203.0.113.9');
    // Every hop trusted: the left-most.
    expect(clientAddress('10.0.0.1', '10.1.1.1, 192.0.2.7', proxies)).toBe('10.1.1.1');
    // A hop that is not an address ends the walk at the proxy that appended it.
    expect(clientAddress('10.0.0.1', '203.0.113.9, garbage', proxies)).toBe('10.0.0.1');
    expect(clientAddress('10.0.0.1', '203.0.113.9, garbage, 192.0.2.7', proxies)).toBe('192.0.2.7');
    expect(clientAddress(undefined, '203.0.113.9', proxies)).toBeUndefined();
    expect(plainAddress('FD00::1')).toBe('fd00::1');
  });
});
