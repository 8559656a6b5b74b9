-- When each booking's travellers' personal data was erased, after its trip or on request (src/domain/privacy.ts).
ALTER TABLE "flight_bookings" ADD COLUMN "personal_data_erased_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "hotel_bookings" ADD COLUMN "personal_data_erased_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "reservations" ADD COLUMN "personal_data_erased_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tour_prebooks" ADD COLUMN "personal_data_erased_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "visa_applications" ADD COLUMN "personal_data_erased_at" timestamp with time zone;