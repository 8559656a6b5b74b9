import net from 'node:net';

export interface CuttableProxy {
  /** host:port to connect to instead of the target. */
  address: string;
  port: number;
  /** Drops every open connection and refuses new ones, as a part that died would. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of a real part (PostgreSQL, the Temporal frontend), so a test can
 * make that part unreachable for its own clients without stopping what other test files use.
 */
export async function startProxy(target: { host: string; port: number }): Promise<CuttableProxy> {
  let open = true;
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
    client.pipe(upstream).pipe(client);
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
