-- Operators' manual corrections of a wallet, proposed and posted (src/domain/adjustments.ts); the audit
-- read by operator and by date (src/domain/audit.ts).
CREATE TABLE "wallet_adjustments" (
	"id" serial PRIMARY KEY NOT NULL,
	"partner_id" integer NOT NULL,
	"amount_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"reason" text NOT NULL,
	"status" text NOT NULL,
	"proposed_by" text NOT NULL,
	"proposed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"approved_by" text,
	"posted_at" timestamp with time zone,
	"ledger_entry_id" integer,
	CONSTRAINT "wallet_adjustments_amount_not_zero" CHECK ("wallet_adjustments"."amount_minor" <> 0),
	CONSTRAINT "wallet_adjustments_posted" CHECK (("wallet_adjustments"."status" = 'posted') = ("wallet_adjustments"."ledger_entry_id" is not null and "wallet_adjustments"."posted_at" is not null))
);
--> statement-breakpoint
ALTER TABLE "wallet_adjustments" ADD CONSTRAINT "wallet_adjustments_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_adjustments" ADD CONSTRAINT "wallet_adjustments_ledger_entry_id_ledger_entries_id_fk" FOREIGN KEY ("ledger_entry_id") REFERENCES "public"."ledger_entries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "wallet_adjustments_ledger_entry_uq" ON "wallet_adjustments" USING btree ("ledger_entry_id");--> statement-breakpoint
CREATE INDEX "wallet_adjustments_partner_idx" ON "wallet_adjustments" USING btree ("partner_id","id");--> statement-breakpoint
CREATE INDEX "operator_actions_operator_idx" ON "operator_actions" USING btree ("operator","id");--> statement-breakpoint
CREATE INDEX "operator_actions_at_idx" ON "operator_actions" USING btree ("at");