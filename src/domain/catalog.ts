import { and, asc, count, eq, ilike, inArray, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { productCategories, products, productVariants } from '../db/schema';
import { fromCatalogue } from './catalog-cache';
import { notFound } from './errors';
import { isStorableId } from './ids';
import { paginate, type PageSlice } from './pagination';

export type ProductRow = typeof products.$inferSelect;
export type VariantRow = typeof productVariants.$inferSelect;

export type CategoryRow = typeof productCategories.$inferSelect;

export function listCategories(db: DbOrTx): Promise<CategoryRow[]> {
  return fromCatalogue(db, 'categories', () => db.select().from(productCategories).orderBy(asc(productCategories.id)));
}

/** A product with its category and its variants, cheapest first. */
export interface Product {
  product: ProductRow;
  category: CategoryRow;
  variants: VariantRow[];
}

/**
 * The variant a basket item gets when it names none (`variant` is optional in the spec): the
 * one the catalogue marks as default. The seed marks one on every product with variants.
 */
export const defaultVariantOf = (variants: VariantRow[]): VariantRow | undefined => variants.find((v) => v.isDefault);

async function variantsOf(db: DbOrTx, productIds: number[]): Promise<Map<number, VariantRow[]>> {
  const byProduct = new Map<number, VariantRow[]>();
  if (productIds.length === 0) return byProduct;
  const rows = await db
    .select()
    .from(productVariants)
    .where(inArray(productVariants.productId, productIds))
    .orderBy(asc(productVariants.price), asc(productVariants.id));
  for (const v of rows) byProduct.set(v.productId, [...(byProduct.get(v.productId) ?? []), v]);
  return byProduct;
}

/** Escapes LIKE wildcards so a search for "100%" means the text, not a pattern. */
const likeText = (s: string) => `%${s.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;

/** A page of the catalogue, read at most once per CATALOGUE_TTL_MS for the same filters. */
export function listProducts(db: DbOrTx, q: { search?: string; category?: number; page: number }): Promise<PageSlice<Product>> {
  return fromCatalogue(db, `products:${JSON.stringify([q.search ?? null, q.category ?? null, q.page])}`, () => readProducts(db, q));
}

async function readProducts(db: DbOrTx, q: { search?: string; category?: number; page: number }): Promise<PageSlice<Product>> {
  const filters: SQL[] = [];
  if (q.search) filters.push(ilike(products.name, likeText(q.search)));
  // A category id past the database's range names no category: nothing matches.
  if (q.category !== undefined) filters.push(isStorableId(q.category) ? eq(products.categoryId, q.category) : sql`false`);
  const where = filters.length ? and(...filters) : undefined;
  return paginate(
    q.page,
    async () => (await db.select({ n: count() }).from(products).where(where))[0]!.n,
    async (offset, limit) => {
      const rows = await db
        .select({ p: products, c: productCategories })
        .from(products)
        .innerJoin(productCategories, eq(productCategories.id, products.categoryId))
        .where(where)
        .orderBy(asc(products.id))
        .limit(limit)
        .offset(offset);
      const variants = await variantsOf(
        db,
        rows.map((r) => r.p.id),
      );
      return rows.map((r) => ({ product: r.p, category: r.c, variants: variants.get(r.p.id) ?? [] }));
    },
  );
}

export async function getProduct(db: DbOrTx, id: number): Promise<Product> {
  if (!isStorableId(id)) throw notFound(`product ${id}`);
  return fromCatalogue(db, `product:${id}`, () => readProduct(db, id));
}

async function readProduct(db: DbOrTx, id: number): Promise<Product> {
  const [row] = await db
    .select({ p: products, c: productCategories })
    .from(products)
    .innerJoin(productCategories, eq(productCategories.id, products.categoryId))
    .where(eq(products.id, id));
  if (!row) throw notFound(`product ${id}`);
  const variants = await variantsOf(db, [id]);
  return { product: row.p, category: row.c, variants: variants.get(id) ?? [] };
}
