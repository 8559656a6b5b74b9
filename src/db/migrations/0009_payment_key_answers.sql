ALTER TABLE "payment_keys" ADD COLUMN "answered_run_id" text;--> statement-breakpoint
ALTER TABLE "payment_keys" ADD COLUMN "answered_at" timestamp (3) with time zone;