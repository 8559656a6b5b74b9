ALTER TABLE "visa_applications" ADD COLUMN "decided_by" text;--> statement-breakpoint
ALTER TABLE "visa_applications" ADD COLUMN "sandbox_decision" jsonb;