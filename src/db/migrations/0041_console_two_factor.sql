ALTER TABLE "agency_users" ADD COLUMN "totp_secret" text;--> statement-breakpoint
ALTER TABLE "agency_users" ADD COLUMN "totp_enabled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "agency_users" ADD COLUMN "totp_last_step" integer;