ALTER TABLE "hotel_bookings" ADD COLUMN "agency" jsonb;--> statement-breakpoint
ALTER TABLE "hotel_bookings" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "hotel_bookings_idempotency_uq" ON "hotel_bookings" USING btree ("partner_id","idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_idempotency_uq" ON "orders" USING btree ("partner_id","idempotency_key");