CREATE TABLE "document_logos" (
	"sha256" text PRIMARY KEY NOT NULL,
	"png" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "finance_documents_movement_uq";--> statement-breakpoint
CREATE UNIQUE INDEX "finance_documents_movement_buyer_uq" ON "finance_documents" USING btree ("ledger_entry_id","partner_id");