import { and, eq, sql } from 'drizzle-orm';
import type { KnownPlace, PlaceIds, PlaceInfo, PlaceKind } from '../suppliers/place-ids';
import type { Db } from './client';
import { supplierPlaces } from './schema';

/** A place's information as text whatever the order of its keys (jsonb keeps its own). */
const canonical = (info: PlaceInfo) => JSON.stringify(info, Object.keys(info).sort());

/** How many places one statement writes. */
const WRITE_BATCH = 500;

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
  const idsOf: PlaceIds['idsOf'] = async (kind, list) => {
    const same = (p: { externalId: string; info: PlaceInfo }) => {
      const known = byExternal.get(key(kind, p.externalId));
      return known !== undefined && canonical(known.info) === canonical(p.info);
    };
    const fresh = [...new Map(list.filter((p) => !same(p)).map((p) => [p.externalId, p])).values()];
    for (let i = 0; i < fresh.length; i += WRITE_BATCH) {
      const batch = fresh.slice(i, i + WRITE_BATCH);
      const rows = await db
        .insert(supplierPlaces)
        .values(batch.map((p) => ({ supplier, kind, externalId: p.externalId, info: p.info })))
        .onConflictDoUpdate({
          target: [supplierPlaces.supplier, supplierPlaces.kind, supplierPlaces.externalId],
          set: { info: sql`excluded.info`, seenAt: sql`now()` },
        })
        .returning({ id: supplierPlaces.id, externalId: supplierPlaces.externalId, info: supplierPlaces.info });
      for (const r of rows) remember(kind, { id: r.id, externalId: r.externalId, info: r.info as PlaceInfo });
    }
    return list.map((p) => byExternal.get(key(kind, p.externalId))!.id);
  };
  return {
    idsOf,
    idOf: async (kind, externalId, info) => (await idsOf(kind, [{ externalId, info }]))[0]!,
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
