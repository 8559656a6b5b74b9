/**
 * What the chaos run talks to: the local cluster (`npm run cluster` writes
 * ${CLUSTER_DIR}/state.json, rewritten atomically on every change) or a plain `npm start`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { adminTokenFile } from '../../src/runtime/admin-token';
import { readClusterState, type ClusterState } from '../cluster/state';
import type { Options } from './options';

export type { ClusterState } from '../cluster/state';

export interface Target {
  kind: 'cluster' | 'npm-start';
  apis: Array<{ name: string; url: string; adminUrl: string }>;
  adminToken: string;
  databaseUrl: string | null;
  /** Temporal frontend, for the check that no payment workflow is left running. */
  temporalAddress: string | null;
  namespace: string;
  /** null when the target's sandbox setting is unknown (npm start: on by default). */
  sandbox: boolean | null;
  stateFile: string | null;
  /** Why the run injects no faults / runs no SQL, said in the JSON line. */
  notes: string[];
}

export const stateFileOf = (opts: Options) => path.resolve(opts.clusterDir, 'state.json');

export const readState = readClusterState;

export function loadTarget(opts: Options): Target {
  if (opts.target === 'cluster') {
    const file = stateFileOf(opts);
    if (!fs.existsSync(file)) {
      throw new Error(`no cluster state at ${file}: start the topology with \`npm run cluster\` (or set CLUSTER_DIR), or use --target npm-start`);
    }
    const state = readState(file);
    if (!state.apis?.length) throw new Error(`${file}: no apis`);
    const token = opts.adminToken ?? state.adminToken;
    if (!token) throw new Error(`${file}: no adminToken (or pass --admin-token)`);
    return {
      kind: 'cluster',
      apis: state.apis.map((a) => ({ name: a.name, url: a.url.replace(/\/$/, ''), adminUrl: a.adminUrl.replace(/\/$/, '') })),
      adminToken: token,
      databaseUrl: opts.databaseUrl ?? state.databaseUrl ?? null,
      temporalAddress: opts.temporalAddress ?? state.temporalAddress ?? null,
      namespace: state.namespace ?? process.env.TEMPORAL_NAMESPACE ?? 'default',
      sandbox: state.sandbox ?? null,
      stateFile: file,
      notes: [],
    };
  }
  const adminUrl = opts.adminUrl ?? `http://127.0.0.1:${process.env.ADMIN_PORT || '8081'}`;
  let token = opts.adminToken;
  if (!token) {
    const file = adminTokenFile(path.resolve(process.env.DATA_DIR || '.data'));
    try {
      token = fs.readFileSync(file, 'utf8').trim();
    } catch {
      throw new Error(`no admin token: pass --admin-token, set ADMIN_TOKEN, or DATA_DIR where npm start wrote admin-token (looked at ${file})`);
    }
  }
  const notes = ['target npm-start: one process, no faults injected'];
  if (!opts.databaseUrl) notes.push('no DATABASE_URL: the engine runs on PGlite inside its process, so no SQL checks; API, Temporal and reconcile checks only');
  return {
    kind: 'npm-start',
    apis: opts.apiUrls.map((url, i) => ({ name: `api-${i + 1}`, url, adminUrl })),
    adminToken: token,
    databaseUrl: opts.databaseUrl ?? null,
    temporalAddress: opts.temporalAddress ?? `127.0.0.1:${process.env.TEMPORAL_DEV_PORT || '7233'}`,
    namespace: process.env.TEMPORAL_NAMESPACE || 'default',
    sandbox: null,
    stateFile: null,
    notes,
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Is a process alive (signal 0)? EPERM counts as alive: it exists, it is someone else's. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Polls the state file until `pred` holds or the time is up; tolerates a file caught mid-rename. */
export async function waitForState(file: string, pred: (s: ClusterState) => boolean, timeoutMs: number, everyMs = 250): Promise<ClusterState | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const s = readState(file);
      if (pred(s)) return s;
    } catch {
      // rewritten atomically, but a reader may still race a missing file: try again
    }
    if (Date.now() >= deadline) return null;
    await sleep(everyMs);
  }
}

/** GET /healthz on every replica until all answer 200, bounded. */
export async function waitHealthy(target: Target, timeoutMs: number): Promise<{ ok: boolean; detail: Record<string, string> }> {
  const deadline = Date.now() + timeoutMs;
  const detail: Record<string, string> = {};
  for (;;) {
    let all = true;
    for (const api of target.apis) {
      try {
        const res = await fetch(`${api.url}/healthz`, { signal: AbortSignal.timeout(5000) });
        detail[api.name] = String(res.status);
        if (res.status !== 200) all = false;
      } catch (err) {
        detail[api.name] = (err as Error).message;
        all = false;
      }
    }
    if (all) return { ok: true, detail };
    if (Date.now() >= deadline) return { ok: false, detail };
    await sleep(1000);
  }
}
