CREATE TABLE "agency_profiles" (
	"partner_id" integer PRIMARY KEY NOT NULL,
	"legal_name" text,
	"address" text,
	"tax_id" text,
	"registration_number" text,
	"email" text,
	"phone" text,
	"logo_type" text,
	"logo" text,
	"logo_png" text,
	"logo_width" integer,
	"logo_height" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agency_profiles_logo_whole" CHECK (("agency_profiles"."logo_type" is null) = ("agency_profiles"."logo" is null) and ("agency_profiles"."logo" is null) = ("agency_profiles"."logo_png" is null))
);
--> statement-breakpoint
CREATE TABLE "document_counters" (
	"issuer" text PRIMARY KEY NOT NULL,
	"last_number" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "document_counters_non_negative" CHECK ("document_counters"."last_number" >= 0)
);
--> statement-breakpoint
CREATE TABLE "finance_documents" (
	"id" serial PRIMARY KEY NOT NULL,
	"issuer" text NOT NULL,
	"number" integer NOT NULL,
	"kind" text NOT NULL,
	"partner_id" integer NOT NULL,
	"order_id" integer NOT NULL,
	"ledger_entry_id" integer NOT NULL,
	"month" text NOT NULL,
	"total_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"snapshot" jsonb NOT NULL,
	"issued_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "finance_documents_number_positive" CHECK ("finance_documents"."number" > 0),
	CONSTRAINT "finance_documents_month" CHECK ("finance_documents"."month" ~ '^[0-9]{4}-[0-9]{2}$')
);
--> statement-breakpoint
ALTER TABLE "agency_profiles" ADD CONSTRAINT "agency_profiles_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finance_documents" ADD CONSTRAINT "finance_documents_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finance_documents" ADD CONSTRAINT "finance_documents_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finance_documents" ADD CONSTRAINT "finance_documents_ledger_entry_id_ledger_entries_id_fk" FOREIGN KEY ("ledger_entry_id") REFERENCES "public"."ledger_entries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "finance_documents_number_uq" ON "finance_documents" USING btree ("issuer","number");--> statement-breakpoint
CREATE UNIQUE INDEX "finance_documents_movement_uq" ON "finance_documents" USING btree ("ledger_entry_id");--> statement-breakpoint
CREATE INDEX "finance_documents_order_idx" ON "finance_documents" USING btree ("order_id","id");--> statement-breakpoint
CREATE INDEX "finance_documents_partner_month_idx" ON "finance_documents" USING btree ("partner_id","month","number");