import type { DbOrTx } from '../../db/client';
import { parentIdOf } from '../sub-agencies';
import type { Party } from './model';
import { brandingOf } from './profile';

/** What invoices say of their issuer and of tax (OPERATOR_*, INVOICE_TAX_*). */
export interface DocumentSettings {
  operator: { legalName: string; address?: string; taxId?: string };
  tax: { name: string; rateHundredths: number };
}

/** Who issues a partner's invoices and credit notes: its code names its number sequence. */
export interface Issuer {
  code: string;
  party: Party;
  /** The prefix of its documents' numbers. */
  prefix: string;
  /** The logo its documents carry (a PNG): an agency's; the company's carry none. */
  logoPng: Buffer | null;
}

/** The engine's company: the issuer of an agency's own documents, and of what it sells a parent of its sub-agencies' orders. */
export function operatorIssuer(settings: DocumentSettings): Issuer {
  const o = settings.operator;
  return {
    code: 'operator',
    prefix: 'OP',
    logoPng: null,
    party: { name: o.legalName, lines: [o.address, o.taxId ? `Tax id: ${o.taxId}` : undefined].filter((l): l is string => !!l) },
  };
}

/**
 * The issuing entity of a partner's finance documents: the company's for an agency of its
 * own; a sub-agency's parent for the sub-agency, which buys from its parent at the parent's
 * price (docs/decisions/documents.md). A parent's sequence is its own (`agency:ID`), numbered
 * `AG<id>-…`: its id never changes, so neither does the prefix, and no two parents share one.
 */
export async function issuerOf(db: DbOrTx, settings: DocumentSettings, partnerId: number): Promise<Issuer> {
  const parentId = await parentIdOf(db, partnerId);
  if (parentId === null) return operatorIssuer(settings);
  const parent = await brandingOf(db, parentId);
  return { code: `agency:${parentId}`, prefix: `AG${parentId}`, party: { name: parent.name, lines: parent.lines }, logoPng: parent.logoPng };
}

/** A document's number as printed: the issuer's prefix and the number, zero-padded. */
export const documentNumber = (prefix: string, n: number) => `${prefix}-${String(n).padStart(7, '0')}`;
