CREATE TABLE "pricing_rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"service" text NOT NULL,
	"partner_id" integer,
	"supplier" text,
	"percent_hundredths" integer DEFAULT 0 NOT NULL,
	"fixed_minor" bigint DEFAULT 0 NOT NULL,
	"min_margin_minor" bigint DEFAULT 0 NOT NULL,
	"currency" text NOT NULL,
	"valid_from" date,
	"valid_to" date,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"removed_at" timestamp with time zone,
	"removed_by" text,
	CONSTRAINT "pricing_rules_service" CHECK ("pricing_rules"."service" IN ('hotels', 'flights', 'products', 'tours', 'residence', 'visa')),
	CONSTRAINT "pricing_rules_non_negative" CHECK ("pricing_rules"."percent_hundredths" >= 0 and "pricing_rules"."fixed_minor" >= 0 and "pricing_rules"."min_margin_minor" >= 0),
	CONSTRAINT "pricing_rules_sets_something" CHECK ("pricing_rules"."percent_hundredths" > 0 or "pricing_rules"."fixed_minor" > 0 or "pricing_rules"."min_margin_minor" > 0),
	CONSTRAINT "pricing_rules_dates" CHECK ("pricing_rules"."valid_from" is null or "pricing_rules"."valid_to" is null or "pricing_rules"."valid_from" <= "pricing_rules"."valid_to")
);
--> statement-breakpoint
ALTER TABLE "hotel_bookings" ADD COLUMN "net_minor" bigint;--> statement-breakpoint
ALTER TABLE "hotel_bookings" ADD COLUMN "margin_minor" bigint;--> statement-breakpoint
ALTER TABLE "hotel_bookings" ADD COLUMN "pricing_rule_id" integer;--> statement-breakpoint
ALTER TABLE "reservations" ADD COLUMN "net_minor" bigint;--> statement-breakpoint
ALTER TABLE "reservations" ADD COLUMN "margin_minor" bigint;--> statement-breakpoint
ALTER TABLE "reservations" ADD COLUMN "pricing_rule_id" integer;--> statement-breakpoint
ALTER TABLE "tour_prebooks" ADD COLUMN "net_minor" bigint;--> statement-breakpoint
ALTER TABLE "tour_prebooks" ADD COLUMN "margin_minor" bigint;--> statement-breakpoint
ALTER TABLE "tour_prebooks" ADD COLUMN "pricing_rule_id" integer;--> statement-breakpoint
ALTER TABLE "pricing_rules" ADD CONSTRAINT "pricing_rules_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "pricing_rules_service_idx" ON "pricing_rules" USING btree ("service","id");--> statement-breakpoint
ALTER TABLE "hotel_bookings" ADD CONSTRAINT "hotel_bookings_pricing_rule_id_pricing_rules_id_fk" FOREIGN KEY ("pricing_rule_id") REFERENCES "public"."pricing_rules"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_pricing_rule_id_pricing_rules_id_fk" FOREIGN KEY ("pricing_rule_id") REFERENCES "public"."pricing_rules"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_pricing_rule_id_pricing_rules_id_fk" FOREIGN KEY ("pricing_rule_id") REFERENCES "public"."pricing_rules"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tour_prebooks" ADD CONSTRAINT "tour_prebooks_pricing_rule_id_pricing_rules_id_fk" FOREIGN KEY ("pricing_rule_id") REFERENCES "public"."pricing_rules"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
UPDATE "orders" SET "net_minor" = "total_price_minor", "margin_minor" = 0 WHERE "net_minor" IS NULL;