/** Shared by the benchmarks: where the engine is, how to call it, and percentiles. */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';

export const API = process.env.API_URL || `http://127.0.0.1:${process.env.PORT || '8080'}`;
export const ADMIN = process.env.ADMIN_URL || `http://127.0.0.1:${process.env.ADMIN_PORT || '8081'}`;

/** A topology with several API replicas (`npm run cluster`): requests go to each in turn. */
const target: { apis: string[]; admin: string; token?: string; next: number } = { apis: [API], admin: ADMIN, next: 0 };

export function useTarget(t: { apis: string[]; adminUrl?: string; adminToken?: string }): void {
  target.apis = t.apis;
  if (t.adminUrl) target.admin = t.adminUrl;
  target.token = t.adminToken;
}

function nextApi(): string {
  target.next = (target.next + 1) % target.apis.length;
  return target.apis[target.next]!;
}

export function adminToken(): string {
  if (target.token) return target.token;
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  return fs.readFileSync(path.join(path.resolve(process.env.DATA_DIR || '.data'), 'admin-token'), 'utf8').trim();
}

export async function admin<T = Record<string, unknown>>(method: 'GET' | 'POST', p: string, body?: unknown): Promise<T> {
  const res = await fetch(`${target.admin}${p}`, {
    method,
    headers: { authorization: `Bearer ${adminToken()}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`admin ${method} ${p}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export interface Partner {
  partner_id: number;
  api_key: string;
  api_secret: string;
  agency_key: string;
}

export const partnerHeaders = (p: Partner) => ({ 'x-api-key': p.api_key, 'x-api-secret': p.api_secret, 'content-type': 'application/json' });

export async function api(p: Partner, method: 'GET' | 'POST', route: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${nextApi()}${route}`, {
    method,
    headers: { ...partnerHeaders(p), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { ok: boolean; data?: Record<string, unknown>; error?: string } };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

export function args(spec: Record<string, { type: 'string' | 'boolean'; default?: string | boolean }>) {
  return parseArgs({ args: process.argv.slice(2), options: spec, allowPositionals: false }).values;
}

/** A TCP port free on the loopback interface now (for a process the bench starts). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
