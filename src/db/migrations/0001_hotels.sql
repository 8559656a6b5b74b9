CREATE TABLE "cancel_quotes" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" integer NOT NULL,
	"order_id" integer NOT NULL,
	"penalty_minor" bigint NOT NULL,
	"refund_minor" bigint NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "hotel_bookings" (
	"id" serial PRIMARY KEY NOT NULL,
	"partner_id" integer NOT NULL,
	"status" text DEFAULT 'placing' NOT NULL,
	"rate_key" text NOT NULL,
	"supplier_hold_id" text,
	"hotel_id" integer,
	"hotel_name" text,
	"city_id" integer,
	"room_name" text,
	"board" text,
	"refundable" boolean,
	"check_in" date,
	"check_out" date,
	"rooms" jsonb,
	"guests" jsonb,
	"contact" jsonb,
	"total_price_minor" bigint,
	"currency" text NOT NULL,
	"cancellation_policy" jsonb,
	"expires_at" timestamp with time zone,
	"order_id" integer,
	"confirmation_number" text,
	"failure" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cancel_quotes" ADD CONSTRAINT "cancel_quotes_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cancel_quotes" ADD CONSTRAINT "cancel_quotes_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hotel_bookings" ADD CONSTRAINT "hotel_bookings_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hotel_bookings" ADD CONSTRAINT "hotel_bookings_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "hotel_bookings_order_uq" ON "hotel_bookings" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "hotel_bookings_partner_idx" ON "hotel_bookings" USING btree ("partner_id");