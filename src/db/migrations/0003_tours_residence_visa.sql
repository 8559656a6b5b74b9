CREATE TABLE "properties" (
	"id" serial PRIMARY KEY NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"city" text NOT NULL,
	"region" text NOT NULL,
	"country" text NOT NULL,
	"address" text NOT NULL,
	"description" text NOT NULL,
	"bedrooms" integer NOT NULL,
	"max_guests" integer NOT NULL,
	"nightly_price_minor" bigint NOT NULL,
	"weekend_price_minor" bigint NOT NULL,
	"cleaning_fee_minor" bigint NOT NULL,
	"min_nights" integer NOT NULL,
	"amenities" jsonb NOT NULL,
	"house_rules" jsonb NOT NULL,
	"cancellation_policy" text NOT NULL,
	CONSTRAINT "properties_code_unique" UNIQUE("code")
);
--> statement-breakpoint
CREATE TABLE "property_blocks" (
	"id" serial PRIMARY KEY NOT NULL,
	"property_id" integer NOT NULL,
	"start_date" date NOT NULL,
	"end_date" date NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reservations" (
	"id" serial PRIMARY KEY NOT NULL,
	"partner_id" integer NOT NULL,
	"hold_ref" text NOT NULL,
	"property_id" integer NOT NULL,
	"check_in" date NOT NULL,
	"check_out" date NOT NULL,
	"guests" integer NOT NULL,
	"lead_guest" jsonb,
	"total_price_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"status" text DEFAULT 'held' NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"order_id" integer,
	"confirmation_number" text,
	"cancel_refund_minor" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reservations_hold_ref_unique" UNIQUE("hold_ref")
);
--> statement-breakpoint
CREATE TABLE "tour_departures" (
	"id" serial PRIMARY KEY NOT NULL,
	"tour_id" integer NOT NULL,
	"code" text NOT NULL,
	"start_date" date NOT NULL,
	"capacity" integer NOT NULL,
	"seats_taken" integer DEFAULT 0 NOT NULL,
	"price_adult_minor" bigint NOT NULL,
	"price_child_minor" bigint NOT NULL,
	"price_infant_minor" bigint NOT NULL,
	CONSTRAINT "tour_departures_code_unique" UNIQUE("code"),
	CONSTRAINT "tour_seats_within_capacity" CHECK ("tour_departures"."seats_taken" >= 0 and "tour_departures"."seats_taken" <= "tour_departures"."capacity")
);
--> statement-breakpoint
CREATE TABLE "tour_prebooks" (
	"id" serial PRIMARY KEY NOT NULL,
	"partner_id" integer NOT NULL,
	"hold_ref" text NOT NULL,
	"departure_id" integer NOT NULL,
	"passengers" jsonb NOT NULL,
	"seats" integer NOT NULL,
	"total_price_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"status" text DEFAULT 'held' NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"order_id" integer,
	"confirmation_number" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tour_prebooks_hold_ref_unique" UNIQUE("hold_ref")
);
--> statement-breakpoint
CREATE TABLE "tours" (
	"id" serial PRIMARY KEY NOT NULL,
	"code" text NOT NULL,
	"title" text NOT NULL,
	"destination_city" text NOT NULL,
	"destination_country" text NOT NULL,
	"category" text NOT NULL,
	"duration_days" integer NOT NULL,
	"description" text NOT NULL,
	"itinerary" jsonb NOT NULL,
	"includes" jsonb NOT NULL,
	CONSTRAINT "tours_code_unique" UNIQUE("code")
);
--> statement-breakpoint
CREATE TABLE "visa_applications" (
	"id" serial PRIMARY KEY NOT NULL,
	"partner_id" integer NOT NULL,
	"visa_product_id" integer NOT NULL,
	"order_id" integer,
	"applicant" jsonb NOT NULL,
	"travel_from" date NOT NULL,
	"travel_to" date NOT NULL,
	"documents" jsonb NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"supplier_reference" text,
	"decision_reason" text,
	"decided_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "visa_products" (
	"id" serial PRIMARY KEY NOT NULL,
	"code" text NOT NULL,
	"country" text NOT NULL,
	"country_name" text NOT NULL,
	"visa_type" text NOT NULL,
	"title" text NOT NULL,
	"processing_days" integer NOT NULL,
	"validity_days" integer NOT NULL,
	"max_stay_days" integer NOT NULL,
	"entries" text NOT NULL,
	"service_fee_minor" bigint NOT NULL,
	"government_fee_minor" bigint NOT NULL,
	"refund_on_rejection_percent" integer NOT NULL,
	"required_documents" jsonb NOT NULL,
	"description" text NOT NULL,
	CONSTRAINT "visa_products_code_unique" UNIQUE("code")
);
--> statement-breakpoint
ALTER TABLE "property_blocks" ADD CONSTRAINT "property_blocks_property_id_properties_id_fk" FOREIGN KEY ("property_id") REFERENCES "public"."properties"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_property_id_properties_id_fk" FOREIGN KEY ("property_id") REFERENCES "public"."properties"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tour_departures" ADD CONSTRAINT "tour_departures_tour_id_tours_id_fk" FOREIGN KEY ("tour_id") REFERENCES "public"."tours"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tour_prebooks" ADD CONSTRAINT "tour_prebooks_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tour_prebooks" ADD CONSTRAINT "tour_prebooks_departure_id_tour_departures_id_fk" FOREIGN KEY ("departure_id") REFERENCES "public"."tour_departures"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tour_prebooks" ADD CONSTRAINT "tour_prebooks_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "visa_applications" ADD CONSTRAINT "visa_applications_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "visa_applications" ADD CONSTRAINT "visa_applications_visa_product_id_visa_products_id_fk" FOREIGN KEY ("visa_product_id") REFERENCES "public"."visa_products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "visa_applications" ADD CONSTRAINT "visa_applications_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "reservations_order_uq" ON "reservations" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "reservations_property_idx" ON "reservations" USING btree ("property_id","check_in");--> statement-breakpoint
CREATE UNIQUE INDEX "tour_prebooks_order_uq" ON "tour_prebooks" USING btree ("order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "visa_applications_order_uq" ON "visa_applications" USING btree ("order_id");