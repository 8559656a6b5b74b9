DROP INDEX "baskets_one_open_uq";--> statement-breakpoint
ALTER TABLE "baskets" ADD COLUMN "user_id" integer;--> statement-breakpoint
ALTER TABLE "hotel_bookings" ADD COLUMN "created_by" jsonb;--> statement-breakpoint
ALTER TABLE "reservations" ADD COLUMN "created_by" jsonb;--> statement-breakpoint
ALTER TABLE "tour_prebooks" ADD COLUMN "created_by" jsonb;--> statement-breakpoint
ALTER TABLE "baskets" ADD CONSTRAINT "baskets_user_id_agency_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."agency_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "baskets_one_open_uq" ON "baskets" USING btree ("partner_id",coalesce("user_id", 0)) WHERE "baskets"."status" = 'open';