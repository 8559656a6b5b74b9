import { and, eq } from 'drizzle-orm';
import type { KnownPlace, PlaceIds, PlaceInfo, PlaceKind } from '../suppliers/place-ids';
import type { Db } from './client';
import { supplierPlaces } from './schema';

/**
 * A supplier's places under integer ids, kept in `supplier_places`. A place seen again with
 * the same information costs no write; the process keeps what it has read or written, since a
 * place's id never changes.
 */
export function placeIds(db: Db, supplier: string): PlaceIds {
  const byExternal = new Map<string, KnownPlace>();
  const byId = new Map<string, KnownPlace>();
  const key = (kind: PlaceKind, x: string | number) => `${kind}:${x}`;
  const remember = (kind: PlaceKind, place: KnownPlace) => {
    byExternal.set(key(kind, place.externalId), place);
    byId.set(key(kind, place.id), place);
    return place;
  };
  return {
    async idOf(kind, externalId, info) {
      const known = byExternal.get(key(kind, externalId));
      if (known && JSON.stringify(known.info) === JSON.stringify(info)) return known.id;
      const [row] = await db
        .insert(supplierPlaces)
        .values({ supplier, kind, externalId, info })
        .onConflictDoUpdate({ target: [supplierPlaces.supplier, supplierPlaces.kind, supplierPlaces.externalId], set: { info, seenAt: new Date() } })
        .returning({ id: supplierPlaces.id });
      return remember(kind, { id: row!.id, externalId, info }).id;
    },
    async find(kind, externalId) {
      const known = byExternal.get(key(kind, externalId));
      if (known) return known;
      const [row] = await db
        .select()
        .from(supplierPlaces)
        .where(and(eq(supplierPlaces.supplier, supplier), eq(supplierPlaces.kind, kind), eq(supplierPlaces.externalId, externalId)));
      return row ? remember(kind, { id: row.id, externalId: row.externalId, info: row.info as PlaceInfo }) : null;
    },
    async lookup(kind, id) {
      const known = byId.get(key(kind, id));
      if (known) return known;
      const [row] = await db
        .select()
        .from(supplierPlaces)
        .where(and(eq(supplierPlaces.id, id), eq(supplierPlaces.supplier, supplier), eq(supplierPlaces.kind, kind)));
      return row ? remember(kind, { id: row.id, externalId: row.externalId, info: row.info as PlaceInfo }) : null;
    },
  };
}
