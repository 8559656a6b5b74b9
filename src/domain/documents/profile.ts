import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { agencyProfiles, partners } from '../../db/schema';
import { notFound } from '../errors';
import type { CheckedLogo } from './logo';
import type { Branding } from './model';

export type AgencyProfileRow = typeof agencyProfiles.$inferSelect;

/** The legal details an agency sets for its documents; null clears one. */
export interface LegalDetails {
  legalName: string | null;
  address: string | null;
  taxId: string | null;
  registrationNumber: string | null;
  email: string | null;
  phone: string | null;
}

export interface AgencyProfile extends LegalDetails {
  partnerName: string;
  logo: { type: string; width: number; height: number; bytes: number } | null;
  updatedAt: Date | null;
}

const EMPTY: LegalDetails = { legalName: null, address: null, taxId: null, registrationNumber: null, email: null, phone: null };

async function profileRow(db: DbOrTx, partnerId: number): Promise<{ name: string; row: AgencyProfileRow | null }> {
  const [found] = await db
    .select({ name: partners.name, row: agencyProfiles })
    .from(partners)
    .leftJoin(agencyProfiles, eq(agencyProfiles.partnerId, partners.id))
    .where(eq(partners.id, partnerId));
  if (!found) throw notFound(`partner ${partnerId}`);
  return found;
}

function view(name: string, row: AgencyProfileRow | null): AgencyProfile {
  const details = row
    ? { legalName: row.legalName, address: row.address, taxId: row.taxId, registrationNumber: row.registrationNumber, email: row.email, phone: row.phone }
    : EMPTY;
  const logo =
    row?.logoType && row.logo
      ? { type: row.logoType, width: row.logoWidth ?? 0, height: row.logoHeight ?? 0, bytes: Buffer.from(row.logo, 'base64').length }
      : null;
  return { ...details, partnerName: name, logo, updatedAt: row?.updatedAt ?? null };
}

export async function agencyProfile(db: DbOrTx, partnerId: number): Promise<AgencyProfile> {
  const { name, row } = await profileRow(db, partnerId);
  return view(name, row);
}

/** Sets the agency's legal details, all of them at once (a field left out is cleared). */
export async function setLegalDetails(db: DbOrTx, partnerId: number, details: LegalDetails): Promise<AgencyProfile> {
  const now = new Date();
  await db
    .insert(agencyProfiles)
    .values({ partnerId, ...details, updatedAt: now })
    .onConflictDoUpdate({ target: agencyProfiles.partnerId, set: { ...details, updatedAt: now } });
  return agencyProfile(db, partnerId);
}

/** Keeps a checked logo (src/domain/documents/logo.ts) in place of the agency's last one. */
export async function setLogo(db: DbOrTx, partnerId: number, logo: CheckedLogo): Promise<AgencyProfile> {
  const now = new Date();
  const values = {
    logoType: logo.type,
    logo: logo.stored.toString('base64'),
    logoPng: logo.png.toString('base64'),
    logoWidth: logo.width,
    logoHeight: logo.height,
    updatedAt: now,
  };
  await db
    .insert(agencyProfiles)
    .values({ partnerId, ...values })
    .onConflictDoUpdate({ target: agencyProfiles.partnerId, set: values });
  return agencyProfile(db, partnerId);
}

/** The agency's logo as kept (the PNG as sent, the SVG as made safe), or null. */
export async function agencyLogo(db: DbOrTx, partnerId: number): Promise<{ type: string; bytes: Buffer } | null> {
  const { row } = await profileRow(db, partnerId);
  return row?.logoType && row.logo ? { type: row.logoType, bytes: Buffer.from(row.logo, 'base64') } : null;
}

/** The details an agency's legal details make into lines under its name. */
export function legalLines(d: Pick<LegalDetails, 'address' | 'taxId' | 'registrationNumber' | 'email' | 'phone'>): string[] {
  return [
    d.address,
    d.taxId ? `Tax id: ${d.taxId}` : null,
    d.registrationNumber ? `Registration: ${d.registrationNumber}` : null,
    [d.email, d.phone].filter(Boolean).join(', ') || null,
  ].filter((l): l is string => !!l);
}

/** What the agency's documents carry of it: its legal name (else its name), its details, its logo. */
export async function brandingOf(db: DbOrTx, partnerId: number): Promise<Branding> {
  const { name, row } = await profileRow(db, partnerId);
  return {
    name: row?.legalName ?? name,
    lines: row ? legalLines(row) : [],
    logoPng: row?.logoPng ? Buffer.from(row.logoPng, 'base64') : null,
  };
}
