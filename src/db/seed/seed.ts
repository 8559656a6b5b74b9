import { and, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../client';
import { productCategories, products, productVariants, properties, propertyBlocks, tourDepartures, tours, visaProducts } from '../schema';
import { SEED_CATEGORIES, SEED_PRODUCTS } from './catalog-data';
import { SEED_PROPERTIES } from './residence-data';
import { SEED_TOURS } from './tours-data';
import { SEED_VISAS } from './visa-data';

/**
 * Brings the catalogue to the seeded state, keyed by slug and SKU: safe to run at every
 * start, and it never deletes, so orders keep pointing at the products they bought.
 */
export async function seedProducts(db: Db): Promise<void> {
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
      if (p.variants.length > 0 && !p.variants.some((v) => v.sku === p.default_variant)) {
        throw new Error(`seed product ${p.sku}: default_variant ${p.default_variant ?? '(none)'} is not one of its variants`);
      }
      // A default that moved is cleared first: the index allows one default per product at any moment.
      await tx
        .update(productVariants)
        .set({ isDefault: false })
        .where(and(eq(productVariants.productId, row!.id), eq(productVariants.isDefault, true), ne(productVariants.sku, p.default_variant ?? '')));
      // In array order: variants get their ids in the order the seed lists them.
      for (const v of p.variants) {
        const variant = {
          productId: row!.id,
          sku: v.sku,
          name: v.name,
          price: v.price_minor,
          dataGb: v.data_gb ?? null,
          validityDays: v.validity_days ?? null,
          isDefault: v.sku === p.default_variant,
        };
        await tx.insert(productVariants).values(variant).onConflictDoUpdate({ target: productVariants.sku, set: variant });
      }
    }
  });
}

const DAY_MS = 86_400_000;
const dayAfter = (base: Date, days: number) => new Date(base.getTime() + days * DAY_MS).toISOString().slice(0, 10);

/**
 * Tours, villas and visa products, keyed by code. Descriptive fields follow the seed
 * data; dated things (tour departures, host-blocked nights) are laid out relative to the
 * first seeding day and then left alone, so seats sold and dates booked stay meaningful.
 */
export async function seedTravelCatalogue(db: Db, now = new Date()): Promise<void> {
  await db.transaction(async (tx) => {
    for (const t of SEED_TOURS) {
      const values = {
        code: t.code,
        title: t.title,
        destinationCity: t.destination_city,
        destinationCountry: t.destination_country,
        category: t.category,
        durationDays: t.duration_days,
        description: t.description,
        itinerary: t.itinerary,
        includes: t.includes,
      };
      const [row] = await tx.insert(tours).values(values).onConflictDoUpdate({ target: tours.code, set: values }).returning({ id: tours.id });
      for (const d of t.departures) {
        await tx
          .insert(tourDepartures)
          .values({
            tourId: row!.id,
            code: d.code,
            startDate: dayAfter(now, d.start_offset_days),
            capacity: d.capacity,
            priceAdult: d.price_adult_minor,
            priceChild: d.price_child_minor,
            priceInfant: d.price_infant_minor,
          })
          .onConflictDoNothing({ target: tourDepartures.code });
      }
    }
    for (const p of SEED_PROPERTIES) {
      const values = {
        code: p.code,
        name: p.name,
        type: p.type,
        city: p.city,
        region: p.province_or_region,
        country: p.country,
        address: p.address,
        description: p.description,
        bedrooms: p.bedrooms,
        maxGuests: p.max_guests,
        nightlyPrice: p.nightly_price_minor,
        weekendPrice: p.weekend_price_minor,
        cleaningFee: p.cleaning_fee_minor,
        minNights: p.min_nights,
        amenities: p.amenities,
        houseRules: p.house_rules,
        cancellationPolicy: p.cancellation_policy,
      };
      const inserted = await tx.insert(properties).values(values).onConflictDoNothing({ target: properties.code }).returning({ id: properties.id });
      if (inserted.length === 0) {
        await tx
          .update(properties)
          .set(values)
          .where(sql`${properties.code} = ${p.code}`);
        continue;
      }
      for (const b of p.blocked_offsets) {
        await tx
          .insert(propertyBlocks)
          .values({ propertyId: inserted[0]!.id, startDate: dayAfter(now, b.from_offset_days), endDate: dayAfter(now, b.from_offset_days + b.nights) });
      }
    }
    for (const v of SEED_VISAS) {
      const values = {
        code: v.code,
        country: v.country,
        countryName: v.country_name,
        visaType: v.visa_type,
        title: v.title,
        processingDays: v.processing_days,
        validityDays: v.validity_days,
        maxStayDays: v.max_stay_days,
        entries: v.entries,
        serviceFee: v.service_fee_minor,
        governmentFee: v.government_fee_minor,
        refundOnRejectionPercent: v.refund_on_rejection_percent,
        requiredDocuments: v.required_documents,
        description: v.description,
      };
      await tx.insert(visaProducts).values(values).onConflictDoUpdate({ target: visaProducts.code, set: values });
    }
  });
}

/** Everything the engine sells from its own catalogue, brought to the seeded state. */
export async function seedCatalog(db: Db): Promise<void> {
  await seedProducts(db);
  await seedTravelCatalogue(db);
}
