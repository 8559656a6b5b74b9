CREATE UNLOGGED TABLE "search_answers" (
	"key" text PRIMARY KEY NOT NULL,
	"supplier" text NOT NULL,
	"service" text NOT NULL,
	"answer" text,
	"fetched_at" bigint,
	"fresh_until" bigint,
	"stale_until" bigint,
	"filling_until" bigint
);
--> statement-breakpoint
CREATE TABLE "search_budgets" (
	"supplier" text PRIMARY KEY NOT NULL,
	"tokens" double precision NOT NULL,
	"at" timestamp (6) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "search_answers_stale_until" ON "search_answers" USING btree ("stale_until");