DROP INDEX "finance_documents_movement_uq";--> statement-breakpoint
CREATE UNIQUE INDEX "finance_documents_movement_buyer_uq" ON "finance_documents" USING btree ("ledger_entry_id","partner_id");