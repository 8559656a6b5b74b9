ALTER TABLE "hotel_bookings" ADD COLUMN "idempotency_request" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "idempotency_request" text;