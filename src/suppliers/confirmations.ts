import { SupplierRejectedError } from './errors';
import { callSupplier as callWithin } from './http';

export interface SupplierConfirmation {
  reference: string;
  client_reference: string;
  status: 'confirmed' | 'cancelled';
  /** What the supplier holds now: the request with its amendments applied. */
  current?: Record<string, unknown>;
}

/**
 * Port to a supplier that confirms requests (tour operator, villa host, visa agency):
 * create (idempotent by client reference), amend, cancel, and look-ups by either reference.
 */
export interface ConfirmingSupplier {
  confirm(clientReference: string, request: Record<string, unknown>, scenario?: string): Promise<SupplierConfirmation>;
  amend(reference: string, change: Record<string, unknown>, scenario?: string): Promise<SupplierConfirmation>;
  cancel(reference: string, scenario?: string): Promise<SupplierConfirmation>;
  /** What the supplier made for our client reference, or null when it has nothing. */
  lookup(clientReference: string, scenario?: string): Promise<SupplierConfirmation | null>;
  /** What the supplier holds under its own reference now, or null when it knows no such reference. */
  read(reference: string, scenario?: string): Promise<SupplierConfirmation | null>;
}

/** A look-up whose 404 means "nothing there", not a failure. */
async function orNull(lookup: () => Promise<SupplierConfirmation>): Promise<SupplierConfirmation | null> {
  try {
    return await lookup();
  } catch (err) {
    if (err instanceof SupplierRejectedError && err.status === 404) return null;
    throw err;
  }
}

export function httpConfirmingSupplier(
  baseUrl: string,
  path: 'tours/bookings' | 'residence/bookings' | 'visa/applications',
  timeoutMs?: number,
): ConfirmingSupplier {
  const callSupplier = <T>(url: string, init: Parameters<typeof callWithin>[1]) => callWithin<T>(url, { timeoutMs, ...init });
  const url = (suffix = '') => `${baseUrl}/${path}${suffix}`;
  return {
    confirm: (clientReference, request, scenario) => callSupplier(url(), { method: 'POST', body: { ...request, client_reference: clientReference }, scenario }),
    amend: (reference, change, scenario) => callSupplier(url(`/${encodeURIComponent(reference)}/amend`), { method: 'POST', body: change, scenario }),
    cancel: (reference, scenario) => callSupplier(url(`/${encodeURIComponent(reference)}/cancel`), { method: 'POST', body: {}, scenario }),
    lookup: (clientReference, scenario) =>
      orNull(() => callSupplier(url(`?client_reference=${encodeURIComponent(clientReference)}`), { method: 'GET', scenario })),
    read: (reference, scenario) => orNull(() => callSupplier(url(`/${encodeURIComponent(reference)}`), { method: 'GET', scenario })),
  };
}
