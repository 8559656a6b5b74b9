-- An airline's changes to issued flight orders, one row per order and change, and the events a
-- supplier sent to our webhook route, one row per supplier and event id (docs/decisions/schedule-changes.md).
CREATE TABLE "schedule_changes" (
	"id" serial PRIMARY KEY NOT NULL,
	"order_id" integer NOT NULL,
	"partner_id" integer NOT NULL,
	"supplier" text NOT NULL,
	"change_id" text NOT NULL,
	"removed" jsonb NOT NULL,
	"added" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"decide_by" timestamp with time zone NOT NULL,
	"default_decision" text NOT NULL,
	"reminded_at" timestamp with time zone,
	"resolved_by" text,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "supplier_events" (
	"id" serial PRIMARY KEY NOT NULL,
	"supplier" text NOT NULL,
	"event_id" text NOT NULL,
	"type" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"handled_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "schedule_changes" ADD CONSTRAINT "schedule_changes_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedule_changes" ADD CONSTRAINT "schedule_changes_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "schedule_changes_order_change_uq" ON "schedule_changes" USING btree ("order_id","change_id");--> statement-breakpoint
CREATE INDEX "schedule_changes_status_idx" ON "schedule_changes" USING btree ("status");--> statement-breakpoint
CREATE UNIQUE INDEX "supplier_events_supplier_event_uq" ON "supplier_events" USING btree ("supplier","event_id");