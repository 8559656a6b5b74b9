/**
 * The partner's interfaces name cities and hotels by integer ids; a supplier like Duffel names
 * them by its own strings (`acc_…`). A registry gives each of a supplier's places one integer
 * id for good, and keeps what an adapter needs to know of it later (a city's name, country and
 * coordinates; a hotel's name and city).
 */
export type PlaceKind = 'city' | 'hotel';

export interface PlaceInfo {
  name: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  /** A city's IATA code. */
  code?: string;
  latitude?: number;
  longitude?: number;
  /** A hotel's city, by the registry's id. */
  city_id?: number;
  stars?: number;
  address?: string;
}

export interface KnownPlace {
  id: number;
  externalId: string;
  info: PlaceInfo;
}

export interface PlaceIds {
  /** The place's id, given it the first time it is seen; `info` replaces what was kept. */
  idOf(kind: PlaceKind, externalId: string, info: PlaceInfo): Promise<number>;
  /** `idOf` for many places at once, in their order. */
  idsOf(kind: PlaceKind, places: Array<{ externalId: string; info: PlaceInfo }>): Promise<number[]>;
  /** A place by the supplier's id, or null when it was never seen. */
  find(kind: PlaceKind, externalId: string): Promise<KnownPlace | null>;
  /** A place by its id, or null when the registry has none of this kind. */
  lookup(kind: PlaceKind, id: number): Promise<KnownPlace | null>;
}
