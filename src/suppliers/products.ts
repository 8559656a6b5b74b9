import { callSupplier } from './http';

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
}

/** Adapter for the supplier's HTTP API (the built-in simulator speaks it). */
export function httpProductSupplier(baseUrl: string): ProductSupplier {
  return {
    fulfil: (req) =>
      callSupplier<Fulfilment>(`${baseUrl}/products/fulfilments`, {
        method: 'POST',
        scenario: req.scenario,
        body: { client_reference: req.clientReference, order_id: req.orderId, items: req.items, delivery: req.delivery },
      }),
  };
}
