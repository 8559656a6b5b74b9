CREATE TABLE "rate_limit_counters" (
	"key" varchar(255) PRIMARY KEY NOT NULL,
	"points" integer DEFAULT 0 NOT NULL,
	"expire" bigint
);
--> statement-breakpoint
ALTER TABLE "partners" ADD COLUMN "rate_limit_per_minute" integer;