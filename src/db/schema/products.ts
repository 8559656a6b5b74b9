/** Products (SIM cards and the like) in their catalogue, baskets, and the lines of a product order. */
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, money } from './columns';
import { orderRef } from './orders';
import { agencyUsers, partnerRef } from './partners';

export const productCategories = pgTable('product_categories', {
  id: serial('id').primaryKey(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
});

export const products = pgTable('products', {
  id: serial('id').primaryKey(),
  sku: text('sku').notNull().unique(),
  name: text('name').notNull(),
  categoryId: integer('category_id')
    .notNull()
    .references(() => productCategories.id),
  description: text('description').notNull(),
  destinations: jsonb('destinations').$type<string[]>().notNull().default([]),
  price: money('price_minor').notNull(),
  delivery: text('delivery', { enum: ['digital', 'physical'] }).notNull(),
  stock: integer('stock').notNull().default(0),
});

export const productVariants = pgTable(
  'product_variants',
  {
    id: serial('id').primaryKey(),
    productId: integer('product_id')
      .notNull()
      .references(() => products.id),
    sku: text('sku').notNull().unique(),
    name: text('name').notNull(),
    price: money('price_minor').notNull(),
    dataGb: integer('data_gb'),
    validityDays: integer('validity_days'),
    // The variant a basket item gets when it names none (the spec makes `variant` optional).
    isDefault: boolean('is_default').notNull().default(false),
  },
  // At most one default per product; the seed gives every product with variants exactly one.
  (t) => [
    uniqueIndex('product_variants_one_default_uq')
      .on(t.productId)
      .where(sql`${t.isDefault}`),
  ],
);

export const baskets = pgTable(
  'baskets',
  {
    id: serial('id').primaryKey(),
    partnerId: partnerRef(),
    // Whose basket it is: the agency's user who fills it, or none for a connection acting as no user.
    userId: integer('user_id').references(() => agencyUsers.id),
    status: text('status', { enum: ['open', 'checked_out'] })
      .notNull()
      .default('open'),
    createdAt: createdAt(),
  },
  // One current basket per partner and user.
  (t) => [
    uniqueIndex('baskets_one_open_uq')
      .on(t.partnerId, sql`coalesce(${t.userId}, 0)`)
      .where(sql`${t.status} = 'open'`),
  ],
);

export const basketItems = pgTable(
  'basket_items',
  {
    id: serial('id').primaryKey(),
    basketId: integer('basket_id')
      .notNull()
      .references(() => baskets.id),
    productId: integer('product_id')
      .notNull()
      .references(() => products.id),
    variantId: integer('variant_id').references(() => productVariants.id),
    quantity: integer('quantity').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('basket_items_basket_idx').on(t.basketId)],
);

export const orderItems = pgTable(
  'order_items',
  {
    id: serial('id').primaryKey(),
    orderId: orderRef(),
    productId: integer('product_id')
      .notNull()
      .references(() => products.id),
    variantId: integer('variant_id').references(() => productVariants.id),
    // Snapshot at checkout: what the supplier is asked to deliver, whatever the catalogue becomes.
    sku: text('sku').notNull(),
    name: text('name').notNull(),
    quantity: integer('quantity').notNull(),
    unitPrice: money('unit_price_minor').notNull(),
    lineTotal: money('line_total_minor').notNull(),
  },
  // An order is read with its lines (a payment's debit, every order view): by order, never by scan.
  (t) => [index('order_items_order_idx').on(t.orderId, t.id)],
);
