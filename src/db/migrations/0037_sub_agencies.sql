CREATE TABLE "agency_markups" (
	"child_id" integer NOT NULL,
	"service" text NOT NULL,
	"percent_hundredths" integer DEFAULT 0 NOT NULL,
	"fixed_minor" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agency_markups_child_id_service_pk" PRIMARY KEY("child_id","service"),
	CONSTRAINT "agency_markups_service" CHECK ("agency_markups"."service" IN ('hotels', 'flights', 'products', 'tours', 'residence', 'visa')),
	CONSTRAINT "agency_markups_non_negative" CHECK ("agency_markups"."percent_hundredths" >= 0 and "agency_markups"."fixed_minor" >= 0),
	CONSTRAINT "agency_markups_sets_something" CHECK ("agency_markups"."percent_hundredths" > 0 or "agency_markups"."fixed_minor" > 0)
);
--> statement-breakpoint
ALTER TABLE "accounts" DROP CONSTRAINT "accounts_code_known";--> statement-breakpoint
ALTER TABLE "accounts" DROP CONSTRAINT "accounts_currency_code";--> statement-breakpoint
ALTER TABLE "hotel_bookings" ADD COLUMN "agency_margin_minor" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "agency_margin_minor" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "partners" ADD COLUMN "parent_id" integer;--> statement-breakpoint
ALTER TABLE "reservations" ADD COLUMN "agency_margin_minor" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tour_prebooks" ADD COLUMN "agency_margin_minor" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agency_markups" ADD CONSTRAINT "agency_markups_child_id_partners_id_fk" FOREIGN KEY ("child_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partners" ADD CONSTRAINT "partners_parent_id_partners_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "partners_parent_idx" ON "partners" USING btree ("parent_id");--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_code_known" CHECK ("accounts"."code" ~ '^((wallet|credit_line|agency_credit|agency_margin):[0-9]+|supplier:[a-z0-9_-]+:[A-Z]{3}|(credit_extended|funding|margin|fees|fx|fx_differences|adjustments):[A-Z]{3})$');--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_currency_code" CHECK ("accounts"."currency" ~ '^[A-Z]{3}$' and ("accounts"."code" ~ '^(wallet|credit_line|agency_credit|agency_margin):' or "accounts"."code" like '%:' || "accounts"."currency"));--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_agency_margin_within_margin" CHECK ("orders"."agency_margin_minor" >= 0 and "orders"."agency_margin_minor" <= coalesce("orders"."margin_minor", 0));