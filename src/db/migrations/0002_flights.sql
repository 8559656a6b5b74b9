CREATE TABLE "flight_bookings" (
	"id" serial PRIMARY KEY NOT NULL,
	"partner_id" integer NOT NULL,
	"status" text DEFAULT 'booking' NOT NULL,
	"fare_source_code" text NOT NULL,
	"pnr" text,
	"supplier_booking_ref" text,
	"ticket_time_limit" timestamp with time zone,
	"departure_at" timestamp with time zone NOT NULL,
	"cabin" text,
	"fare_family" text,
	"refundable" boolean,
	"refund_penalty_minor" bigint,
	"legs" jsonb,
	"travelers" jsonb NOT NULL,
	"contact" jsonb NOT NULL,
	"tickets" jsonb,
	"total_price_minor" bigint,
	"currency" text NOT NULL,
	"order_id" integer,
	"refund_reason" text,
	"failure" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "flight_bookings" ADD CONSTRAINT "flight_bookings_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "flight_bookings" ADD CONSTRAINT "flight_bookings_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "flight_bookings_order_uq" ON "flight_bookings" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "flight_bookings_partner_idx" ON "flight_bookings" USING btree ("partner_id");