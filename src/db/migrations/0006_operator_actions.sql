CREATE TABLE "operator_actions" (
	"id" serial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"operator" text NOT NULL,
	"action" text NOT NULL,
	"target" text NOT NULL,
	"reason" text,
	"details" jsonb
);
--> statement-breakpoint
CREATE INDEX "operator_actions_target_idx" ON "operator_actions" USING btree ("target","id");