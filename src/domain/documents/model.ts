/**
 * A document as the PDFs draw it, whatever its kind: a title, who it is from and for, facts
 * as label and value, tables, and notes. Traveller documents are built from the booking on
 * each request; finance documents are built once, when issued, and kept as they are.
 */
export interface Party {
  name: string;
  lines: string[];
}

export interface DocumentTable {
  title: string;
  columns: string[];
  rows: string[][];
  /** The columns (by index) aligned right: amounts. */
  right?: number[];
}

export interface DocumentContent {
  title: string;
  /** What identifies it at a glance: "Order 12", "Invoice OP-0000042". */
  reference: string;
  facts: Array<[string, string]>;
  parties?: { seller: Party; buyer: Party };
  tables: DocumentTable[];
  notes: string[];
}

/** What the agency's documents carry of it: its name, legal details and logo (a PNG to draw). */
export interface Branding {
  name: string;
  lines: string[];
  logoPng: Buffer | null;
}

/** The traveller documents, one per service, and the finance documents; the names the URLs use. */
export const TRAVEL_DOCUMENT_KINDS = ['voucher', 'itinerary-receipt', 'visa-receipt'] as const;
export type TravelDocumentKind = (typeof TRAVEL_DOCUMENT_KINDS)[number];
