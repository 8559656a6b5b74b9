import { SupplierRejectedError, SupplierUnavailableError } from './errors';

export const SANDBOX_SCENARIO_HEADER = 'X-Sandbox-Scenario';

/**
 * One JSON call to a supplier: 2xx is the answer, 4xx a rejection (final), 5xx or no
 * answer at all is transient. The scenario header only means something to the simulator.
 */
export async function callSupplier<T>(
  url: string,
  init: { method: 'GET' | 'POST'; body?: unknown; scenario?: string; timeoutMs?: number },
): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.scenario) headers[SANDBOX_SCENARIO_HEADER] = init.scenario;
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method,
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(init.timeoutMs ?? 90_000),
    });
  } catch (err) {
    throw new SupplierUnavailableError(`supplier unreachable: ${(err as Error).message}`);
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = { error: text.slice(0, 200) };
  }
  const message = (body as { error?: string }).error ?? `HTTP ${res.status}`;
  if (res.status >= 400 && res.status < 500) throw new SupplierRejectedError(message, res.status);
  if (!res.ok) throw new SupplierUnavailableError(`supplier error ${res.status}: ${message}`);
  return body as T;
}
