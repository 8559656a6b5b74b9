CREATE TABLE "flight_changes" (
	"id" serial PRIMARY KEY NOT NULL,
	"partner_id" integer NOT NULL,
	"order_id" integer NOT NULL,
	"idempotency_key" text NOT NULL,
	"kind" text DEFAULT 'change' NOT NULL,
	"status" text DEFAULT 'confirming' NOT NULL,
	"supplier" text NOT NULL,
	"change_offer_id" text,
	"supplier_change_id" text,
	"supplier_amount_minor" bigint NOT NULL,
	"supplier_currency" text NOT NULL,
	"net_minor" bigint NOT NULL,
	"penalty_minor" bigint NOT NULL,
	"fee_minor" bigint NOT NULL,
	"agency_fee_minor" bigint DEFAULT 0 NOT NULL,
	"total_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"pricing_rule_id" integer,
	"remove" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"add" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"services" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"bags_before" integer,
	"workflow_id" text NOT NULL,
	"failure" text,
	"created_by" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"confirmed_at" timestamp with time zone,
	CONSTRAINT "flight_changes_total" CHECK ("flight_changes"."total_minor" = "flight_changes"."net_minor" + "flight_changes"."fee_minor"),
	CONSTRAINT "flight_changes_kind" CHECK (("flight_changes"."kind" = 'change') = ("flight_changes"."change_offer_id" is not null))
);
--> statement-breakpoint
ALTER TABLE "agency_markups" DROP CONSTRAINT "agency_markups_service";--> statement-breakpoint
ALTER TABLE "pricing_rules" DROP CONSTRAINT "pricing_rules_service";--> statement-breakpoint
ALTER TABLE "flight_bookings" ADD COLUMN "services" jsonb;--> statement-breakpoint
ALTER TABLE "flight_changes" ADD CONSTRAINT "flight_changes_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "flight_changes" ADD CONSTRAINT "flight_changes_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "flight_changes_key_uq" ON "flight_changes" USING btree ("partner_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "flight_changes_order_idx" ON "flight_changes" USING btree ("order_id");--> statement-breakpoint
ALTER TABLE "agency_markups" ADD CONSTRAINT "agency_markups_service" CHECK ("agency_markups"."service" IN ('hotels', 'flights', 'products', 'tours', 'residence', 'visa', 'flight_change'));--> statement-breakpoint
ALTER TABLE "pricing_rules" ADD CONSTRAINT "pricing_rules_service" CHECK ("pricing_rules"."service" IN ('hotels', 'flights', 'products', 'tours', 'residence', 'visa', 'flight_change'));