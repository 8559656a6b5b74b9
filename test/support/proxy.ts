import net from 'node:net';

export interface CuttableProxy {
  /** host:port to connect to instead of the target. */
  address: string;
  port: number;
  /** Drops every open connection and refuses new ones, as a part that died would. */
  cut(): void;
  /** Holds back every answer for `ms` (requests still go through), then delivers them in order: answers lost for a while. */
  stall(ms: number): void;
  restore(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of a real part (PostgreSQL, the Temporal frontend), so a test can
 * make that part unreachable for its own clients without stopping what other test files use.
 */
export async function startProxy(target: { host: string; port: number }): Promise<CuttableProxy> {
  let open = true;
  let stalled = false;
  const held = new Map<net.Socket, Buffer[]>();
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  const server = net.createServer((client) => {
    track(client);
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (!stalled) return void client.write(chunk);
      held.set(client, [...(held.get(client) ?? []), chunk]);
    });
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.once('error', drop).once('close', drop);
    upstream.once('error', drop).once('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    port,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    stall(ms) {
      stalled = true;
      setTimeout(() => {
        stalled = false;
        for (const [client, chunks] of held) for (const chunk of chunks) if (!client.destroyed) client.write(chunk);
        held.clear();
      }, ms);
    },
    restore() {
      open = true;
    },
    close() {
      open = false;
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** host and port of `host:port` or of a URL's authority. */
export function hostPort(address: string): { host: string; port: number } {
  const url = new URL(address.includes('://') ? address : `tcp://${address}`);
  return { host: url.hostname, port: Number(url.port) };
}
