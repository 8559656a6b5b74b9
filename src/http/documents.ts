import type { DocumentDeps, DocumentEntry } from '../domain/documents/catalogue';
import type { ApiDeps } from './deps';

/** What the document routes of both interfaces read: the database, the invoices' settings, and what the suppliers can add. */
export function documentDeps(deps: ApiDeps): DocumentDeps {
  return {
    db: deps.db,
    settings: deps.documents,
    facts: {
      async hotel(supplier, hotelId) {
        if (supplier !== deps.hotelSupplier.name) return null;
        const h = await deps.hotelSupplier.hotel(hotelId);
        return { address: h.address, city: h.city };
      },
      baggage: (supplier, fareSourceCode) => deps.flightSupplierOf(supplier).baggage(fareSourceCode),
    },
  };
}

/** A document file's name in a path: its kind and `.pdf`. */
export const DOCUMENT_FILE = /^([a-z][a-z0-9-]{0,39})\.pdf$/;

/** An entry of an order's document list, as both interfaces write it, with the path of its PDF. */
export const renderEntry = (e: DocumentEntry, base: string) => ({
  kind: e.kind,
  title: e.title,
  available: e.available,
  reason: e.reason,
  number: e.number,
  url: `${base}${e.kind}.pdf`,
});
