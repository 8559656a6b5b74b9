CREATE TABLE "supplier_places" (
	"id" serial PRIMARY KEY NOT NULL,
	"supplier" text NOT NULL,
	"kind" text NOT NULL,
	"external_id" text NOT NULL,
	"info" jsonb NOT NULL,
	"seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "supplier_places_kind" CHECK ("supplier_places"."kind" IN ('city', 'hotel'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "supplier_places_external_idx" ON "supplier_places" USING btree ("supplier","kind","external_id");