import { SupplierRejectedError } from './errors';
import { callSupplier as callWithin } from './http';

export interface FulfilmentRequest {
  clientReference: string;
  orderId: number;
  items: Array<{ sku: string; quantity: number }>;
  delivery: unknown;
  scenario?: string;
}

export interface Fulfilment {
  fulfilment_id: string;
  status: string;
  client_reference: string;
}

/** Port to the travel-products supplier (eSIM issuer, SIM and modem logistics). */
export interface ProductSupplier {
  fulfil(req: FulfilmentRequest): Promise<Fulfilment>;
  /** The fulfilment made for a client reference, or null when the supplier has none. */
  lookup(clientReference: string, scenario?: string): Promise<Fulfilment | null>;
}

/** Adapter for the supplier's HTTP API (the built-in simulator speaks it). */
export function httpProductSupplier(baseUrl: string, timeoutMs?: number): ProductSupplier {
  const callSupplier = <T>(url: string, init: Parameters<typeof callWithin>[1]) => callWithin<T>(url, { timeoutMs, ...init });
  return {
    fulfil: (req) =>
      callSupplier<Fulfilment>(`${baseUrl}/products/fulfilments`, {
        method: 'POST',
        scenario: req.scenario,
        body: { client_reference: req.clientReference, order_id: req.orderId, items: req.items, delivery: req.delivery },
      }),
    lookup: async (clientReference, scenario) => {
      try {
        return await callSupplier<Fulfilment>(`${baseUrl}/products/fulfilments?client_reference=${encodeURIComponent(clientReference)}`, {
          method: 'GET',
          scenario,
        });
      } catch (err) {
        if (err instanceof SupplierRejectedError && err.status === 404) return null;
        throw err;
      }
    },
  };
}
