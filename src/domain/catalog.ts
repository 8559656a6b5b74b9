import { and, asc, count, eq, ilike, inArray, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { productCategories, products, productVariants } from '../db/schema';
import { notFound } from './errors';
import { isStorableId } from './ids';
import { formatDecimal } from './money';
import { paginate, type Page } from './pagination';

type ProductRow = typeof products.$inferSelect;
type VariantRow = typeof productVariants.$inferSelect;
type CategoryRow = typeof productCategories.$inferSelect;

export async function listCategories(db: DbOrTx) {
  const rows = await db.select().from(productCategories).orderBy(asc(productCategories.id));
  return rows.map((c) => ({ id: c.id, slug: c.slug, name: c.name }));
}

function renderProduct(p: ProductRow, category: CategoryRow, variants: VariantRow[], currency: string) {
  return {
    id: p.id,
    sku: p.sku,
    name: p.name,
    category: { id: category.id, slug: category.slug, name: category.name },
    description: p.description,
    destinations: p.destinations,
    price: formatDecimal(p.price, currency),
    currency,
    delivery: p.delivery,
    in_stock: p.stock > 0,
    variants: variants.map((v) => ({
      id: v.id,
      sku: v.sku,
      name: v.name,
      price: formatDecimal(v.price, currency),
      data_gb: v.dataGb,
      validity_days: v.validityDays,
    })),
  };
}
export type ProductView = ReturnType<typeof renderProduct>;

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

export async function listProducts(
  db: DbOrTx,
  q: { search?: string; category?: number; page: number },
  requestUrl: string,
  currency: string,
): Promise<Page<ProductView>> {
  const filters: SQL[] = [];
  if (q.search) filters.push(ilike(products.name, likeText(q.search)));
  // A category id past the database's range names no category: nothing matches.
  if (q.category !== undefined) filters.push(isStorableId(q.category) ? eq(products.categoryId, q.category) : sql`false`);
  const where = filters.length ? and(...filters) : undefined;
  return paginate(
    requestUrl,
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
      return rows.map((r) => renderProduct(r.p, r.c, variants.get(r.p.id) ?? [], currency));
    },
  );
}

export async function getProduct(db: DbOrTx, id: number, currency: string): Promise<ProductView> {
  if (!isStorableId(id)) throw notFound(`product ${id}`);
  const [row] = await db
    .select({ p: products, c: productCategories })
    .from(products)
    .innerJoin(productCategories, eq(productCategories.id, products.categoryId))
    .where(eq(products.id, id));
  if (!row) throw notFound(`product ${id}`);
  const variants = await variantsOf(db, [id]);
  return renderProduct(row.p, row.c, variants.get(id) ?? [], currency);
}
