import type { DbOrTx } from '../../db/client';
import type { Party } from './model';

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
}

/**
 * The issuing entity of a partner's finance documents. Every partner's are the engine's
 * company's (`operator`), one sequence for all; this is the one place that decides it, so
 * another issuer (a parent agency for its children) is a change here alone.
 */
export async function issuerOf(_db: DbOrTx, settings: DocumentSettings, _partnerId: number): Promise<Issuer> {
  const o = settings.operator;
  return {
    code: 'operator',
    prefix: 'OP',
    party: { name: o.legalName, lines: [o.address, o.taxId ? `Tax id: ${o.taxId}` : undefined].filter((l): l is string => !!l) },
  };
}

/** A document's number as printed: the issuer's prefix and the number, zero-padded. */
export const documentNumber = (prefix: string, n: number) => `${prefix}-${String(n).padStart(7, '0')}`;
