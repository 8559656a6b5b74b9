ALTER TABLE "orders" ADD COLUMN "supplier" text DEFAULT 'simulator' NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "net_minor" bigint;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "margin_minor" bigint;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "pricing_rule_id" integer;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_price_parts" CHECK (("orders"."net_minor" is null and "orders"."margin_minor" is null) or ("orders"."net_minor" >= 0 and "orders"."margin_minor" >= 0 and "orders"."net_minor" + "orders"."margin_minor" = "orders"."total_price_minor"));--> statement-breakpoint
UPDATE "orders" SET "supplier" = b."supplier" FROM "hotel_bookings" b WHERE b."order_id" = "orders"."id";--> statement-breakpoint
UPDATE "orders" SET "supplier" = b."supplier" FROM "flight_bookings" b WHERE b."order_id" = "orders"."id";
