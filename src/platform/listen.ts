import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Listens on a port (0 = any free one) and resolves once it accepts connections. */
export function listen(fetch: (req: Request) => Response | Promise<Response>, port: number, hostname: string): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    let server: ServerType;
    try {
      server = serve({ fetch, port, hostname }, (info: AddressInfo) => {
        const host = hostname === '0.0.0.0' ? '127.0.0.1' : hostname;
        resolve({
          url: `http://${host}:${info.port}`,
          port: info.port,
          close: () => new Promise<void>((done) => server.close(() => done())),
        });
      });
      server.on('error', reject);
    } catch (err) {
      reject(err);
    }
  });
}
