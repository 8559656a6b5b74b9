import type { ActorRecord, AgencyRole } from '../db/schema';

/**
 * What the people and connections of an agency may do (docs/decisions/rights.md). Every
 * operation of both interfaces needs one right (src/http/rights.ts names which); a role is
 * a set of rights, and a connection carries the rights its owner gave it.
 */
export const RIGHTS = {
  search: 'search and read what is for sale: prices, availability, quotes, the catalogue',
  book: 'make orders, holds, prebooks, reservations and applications',
  pay: 'pay for an order from the wallet',
  modify: 'cancel, refund and change bookings',
  view: "read the agency's bookings and orders, and its events",
  documents: 'download vouchers, itinerary receipts and application receipts',
  finance: 'read the wallet, its ledger and statements, invoices and credit notes',
  webhooks: 'manage webhook endpoints',
  profile: "set the agency's legal details and logo, printed on its documents",
  users: "manage the agency's users",
  connections: "manage the agency's API connections",
  sub_agencies: 'manage sub-agencies: their credit and markups',
} as const;
export type Right = keyof typeof RIGHTS;
export const RIGHT_NAMES = Object.keys(RIGHTS) as [Right, ...Right[]];
export const isRight = (s: string): s is Right => Object.hasOwn(RIGHTS, s);

/** The rights each role of a user holds: the one table the API, the admin tool and the console read. */
export const ROLE_RIGHTS: Record<AgencyRole, readonly Right[]> = {
  owner: RIGHT_NAMES,
  finance: ['finance', 'view'],
  agent: ['search', 'book', 'pay', 'modify', 'view', 'documents'],
  viewer: ['search', 'view', 'documents'],
};

/** Who is acting for an agency on a request, and what they may do there. */
export interface Principal {
  /** Recorded on what they do (orders, ledger rows, events). */
  actor: ActorRecord;
  rights: ReadonlySet<Right>;
  /** Set for an agent who sees only the bookings they made: their user id. */
  ownBookingsOf: number | null;
}

/**
 * What a connection may do: its own rights, and when it belongs to a user, only those of them
 * the user's role holds too (a connection never lets a user do more than their role).
 */
export function principalOf(
  connection: { id: number; name: string; rights: readonly string[] },
  user: { id: number; name: string; role: AgencyRole; ownBookingsOnly: boolean } | null,
): Principal {
  const own = connection.rights.filter(isRight);
  if (!user) return { actor: { type: 'connection', id: connection.id, name: connection.name }, rights: new Set(own), ownBookingsOf: null };
  const role = new Set(ROLE_RIGHTS[user.role]);
  return {
    actor: { type: 'user', id: user.id, name: user.name, connection_id: connection.id },
    rights: new Set(own.filter((r) => role.has(r))),
    ownBookingsOf: user.role === 'agent' && user.ownBookingsOnly ? user.id : null,
  };
}
