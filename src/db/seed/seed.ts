import { sql } from 'drizzle-orm';
import type { Db } from '../client';
import { productCategories, products, productVariants } from '../schema';
import { SEED_CATEGORIES, SEED_PRODUCTS } from './catalog-data';

/**
 * Brings the catalogue to the seeded state, keyed by slug and SKU: safe to run at every
 * start, and it never deletes, so orders keep pointing at the products they bought.
 */
export async function seedCatalog(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    const categoryIds = new Map<string, number>();
    for (const c of SEED_CATEGORIES) {
      const [row] = await tx
        .insert(productCategories)
        .values(c)
        .onConflictDoUpdate({ target: productCategories.slug, set: { name: c.name } })
        .returning({ id: productCategories.id });
      categoryIds.set(c.slug, row!.id);
    }
    for (const p of SEED_PRODUCTS) {
      const values = {
        sku: p.sku,
        name: p.name,
        categoryId: categoryIds.get(p.category)!,
        description: p.description,
        destinations: p.destinations,
        price: p.price_minor,
        delivery: p.delivery,
        stock: p.stock,
      };
      const [row] = await tx
        .insert(products)
        .values(values)
        .onConflictDoUpdate({ target: products.sku, set: { ...values, sku: sql`excluded.sku` } })
        .returning({ id: products.id });
      for (const v of p.variants) {
        const variant = {
          productId: row!.id,
          sku: v.sku,
          name: v.name,
          price: v.price_minor,
          dataGb: v.data_gb ?? null,
          validityDays: v.validity_days ?? null,
        };
        await tx.insert(productVariants).values(variant).onConflictDoUpdate({ target: productVariants.sku, set: variant });
      }
    }
  });
}
