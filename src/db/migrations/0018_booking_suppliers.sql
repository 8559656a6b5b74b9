ALTER TABLE "flight_bookings" ADD COLUMN "supplier" text DEFAULT 'simulator' NOT NULL;--> statement-breakpoint
ALTER TABLE "flight_bookings" ADD COLUMN "supplier_amount_minor" bigint;--> statement-breakpoint
ALTER TABLE "flight_bookings" ADD COLUMN "supplier_currency" text;--> statement-breakpoint
ALTER TABLE "flight_bookings" ADD COLUMN "fx_rate_amount" bigint;--> statement-breakpoint
ALTER TABLE "flight_bookings" ADD COLUMN "fx_rate_scale" integer;--> statement-breakpoint
ALTER TABLE "flight_bookings" ADD COLUMN "fx_rate_id" integer;--> statement-breakpoint
ALTER TABLE "hotel_bookings" ADD COLUMN "supplier" text DEFAULT 'simulator' NOT NULL;--> statement-breakpoint
ALTER TABLE "hotel_bookings" ADD COLUMN "supplier_amount_minor" bigint;--> statement-breakpoint
ALTER TABLE "hotel_bookings" ADD COLUMN "supplier_currency" text;--> statement-breakpoint
ALTER TABLE "hotel_bookings" ADD COLUMN "fx_rate_amount" bigint;--> statement-breakpoint
ALTER TABLE "hotel_bookings" ADD COLUMN "fx_rate_scale" integer;--> statement-breakpoint
ALTER TABLE "hotel_bookings" ADD COLUMN "fx_rate_id" integer;--> statement-breakpoint
ALTER TABLE "flight_bookings" ADD CONSTRAINT "flight_bookings_fx_rate_id_exchange_rates_id_fk" FOREIGN KEY ("fx_rate_id") REFERENCES "public"."exchange_rates"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hotel_bookings" ADD CONSTRAINT "hotel_bookings_fx_rate_id_exchange_rates_id_fk" FOREIGN KEY ("fx_rate_id") REFERENCES "public"."exchange_rates"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- The simulator addresses a booking by its PNR: that is the supplier's id of every flight order made so far.
UPDATE "flight_bookings" SET "supplier_booking_ref" = "pnr" WHERE "pnr" IS NOT NULL;
