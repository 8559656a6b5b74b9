import fs from 'node:fs';
import type { TLSConfig } from '@temporalio/client';

/** The settings (src/config.ts) that say how to reach a Temporal cluster over TLS. */
export interface TemporalTlsSettings {
  TEMPORAL_ADDRESS?: string | undefined;
  TEMPORAL_TLS: boolean;
  TEMPORAL_TLS_CA?: string | undefined;
  TEMPORAL_TLS_CERT?: string | undefined;
  TEMPORAL_TLS_KEY?: string | undefined;
  TEMPORAL_TLS_SERVER_NAME?: string | undefined;
}

/**
 * How the engine's connections to a Temporal cluster (TEMPORAL_ADDRESS: the API's client, the
 * workers, the health probes) speak TLS: none to the dev server `npm start` runs, none unless
 * TEMPORAL_TLS or one of its files is set; the CA to check the frontend against
 * (unset: the system's), the client certificate and key for mTLS, the name the frontend's
 * certificate is checked for. The files are read once, here: a missing one stops start-up
 * with its setting's name.
 */
export function temporalTls(config: TemporalTlsSettings, read: (file: string) => Buffer = fs.readFileSync): TLSConfig | undefined {
  const { TEMPORAL_TLS_CA: ca, TEMPORAL_TLS_CERT: cert, TEMPORAL_TLS_KEY: key, TEMPORAL_TLS_SERVER_NAME: serverName } = config;
  if (!config.TEMPORAL_ADDRESS || (!config.TEMPORAL_TLS && !ca && !cert && !key && !serverName)) return undefined;
  const file = (setting: string, path: string) => {
    try {
      return read(path);
    } catch (err) {
      throw new Error(`${setting}: cannot read ${path}: ${(err as Error).message}`);
    }
  };
  return {
    ...(ca ? { serverRootCACertificate: file('TEMPORAL_TLS_CA', ca) } : {}),
    ...(cert && key ? { clientCertPair: { crt: file('TEMPORAL_TLS_CERT', cert), key: file('TEMPORAL_TLS_KEY', key) } } : {}),
    ...(serverName ? { serverNameOverride: serverName } : {}),
  };
}
