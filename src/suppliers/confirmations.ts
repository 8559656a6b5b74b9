import { SupplierRejectedError } from './errors';
import { callSupplier } from './http';

export interface SupplierConfirmation {
  reference: string;
  client_reference: string;
  status: 'confirmed' | 'cancelled';
}

/**
 * Port to a supplier that confirms requests (tour operator, villa host, visa agency):
 * create (idempotent by client reference), amend, cancel.
 */
export interface ConfirmingSupplier {
  confirm(clientReference: string, request: Record<string, unknown>, scenario?: string): Promise<SupplierConfirmation>;
  amend(reference: string, change: Record<string, unknown>): Promise<SupplierConfirmation>;
  cancel(reference: string, scenario?: string): Promise<SupplierConfirmation>;
  /** What the supplier made for our client reference, or null when it has nothing. */
  lookup(clientReference: string, scenario?: string): Promise<SupplierConfirmation | null>;
}

export function httpConfirmingSupplier(baseUrl: string, path: 'tours/bookings' | 'residence/bookings' | 'visa/applications'): ConfirmingSupplier {
  const url = (suffix = '') => `${baseUrl}/${path}${suffix}`;
  return {
    confirm: (clientReference, request, scenario) => callSupplier(url(), { method: 'POST', body: { ...request, client_reference: clientReference }, scenario }),
    amend: (reference, change) => callSupplier(url(`/${encodeURIComponent(reference)}/amend`), { method: 'POST', body: change }),
    cancel: (reference, scenario) => callSupplier(url(`/${encodeURIComponent(reference)}/cancel`), { method: 'POST', body: {}, scenario }),
    lookup: async (clientReference, scenario) => {
      try {
        return await callSupplier<SupplierConfirmation>(url(`?client_reference=${encodeURIComponent(clientReference)}`), { method: 'GET', scenario });
      } catch (err) {
        if (err instanceof SupplierRejectedError && err.status === 404) return null;
        throw err;
      }
    },
  };
}
