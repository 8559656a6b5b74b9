CREATE TABLE "accounts" (
	"code" text PRIMARY KEY NOT NULL,
	"kind" text GENERATED ALWAYS AS (split_part(code, ':', 1)) STORED NOT NULL,
	"currency" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "accounts_code_currency_uq" UNIQUE("code","currency"),
	CONSTRAINT "accounts_code_known" CHECK ("accounts"."code" ~ '^((wallet|credit_line):[0-9]+|supplier:[a-z0-9_-]+:[A-Z]{3}|(credit_extended|funding|margin|fees|fx|fx_differences|adjustments):[A-Z]{3})$'),
	CONSTRAINT "accounts_currency_code" CHECK ("accounts"."currency" ~ '^[A-Z]{3}$' and ("accounts"."code" ~ '^(wallet|credit_line):' or "accounts"."code" like '%:' || "accounts"."currency"))
);
--> statement-breakpoint
CREATE TABLE "transfers" (
	"id" serial PRIMARY KEY NOT NULL,
	"ledger_entry_id" integer NOT NULL,
	"order_id" integer,
	"kind" text NOT NULL,
	"debit_account" text NOT NULL,
	"credit_account" text NOT NULL,
	"currency" text NOT NULL,
	"amount_minor" bigint NOT NULL,
	"reverses_transfer_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "transfers_amount_positive" CHECK ("transfers"."amount_minor" > 0),
	CONSTRAINT "transfers_two_accounts" CHECK ("transfers"."debit_account" <> "transfers"."credit_account")
);
--> statement-breakpoint
ALTER TABLE "transfers" ADD CONSTRAINT "transfers_ledger_entry_id_ledger_entries_id_fk" FOREIGN KEY ("ledger_entry_id") REFERENCES "public"."ledger_entries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transfers" ADD CONSTRAINT "transfers_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transfers" ADD CONSTRAINT "transfers_debit_account_fk" FOREIGN KEY ("debit_account","currency") REFERENCES "public"."accounts"("code","currency") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transfers" ADD CONSTRAINT "transfers_credit_account_fk" FOREIGN KEY ("credit_account","currency") REFERENCES "public"."accounts"("code","currency") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transfers" ADD CONSTRAINT "transfers_reverses_fk" FOREIGN KEY ("reverses_transfer_id") REFERENCES "public"."transfers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "transfers_entry_idx" ON "transfers" USING btree ("ledger_entry_id");--> statement-breakpoint
CREATE INDEX "transfers_debit_idx" ON "transfers" USING btree ("debit_account","created_at");--> statement-breakpoint
CREATE INDEX "transfers_credit_idx" ON "transfers" USING btree ("credit_account","created_at");--> statement-breakpoint
CREATE INDEX "transfers_order_idx" ON "transfers" USING btree ("order_id");--> statement-breakpoint
-- The books of the wallets' history so far: each ledger row as the transfer it was, every sale at the supplier's price.
INSERT INTO "accounts" ("code", "currency")
SELECT 'wallet:' || "partner_id", "currency" FROM "wallets"
UNION SELECT 'credit_line:' || "partner_id", "currency" FROM "wallets"
UNION SELECT 'funding:' || "currency", "currency" FROM "wallets"
UNION SELECT 'credit_extended:' || "currency", "currency" FROM "wallets"
UNION SELECT 'adjustments:' || "currency", "currency" FROM "wallets"
UNION SELECT 'supplier:simulator:' || "currency", "currency" FROM "wallets"
UNION SELECT DISTINCT 'supplier:' || o."supplier" || ':' || w."currency", w."currency"
  FROM "ledger_entries" l JOIN "wallets" w ON w."partner_id" = l."partner_id" JOIN "orders" o ON o."id" = l."order_id";--> statement-breakpoint
INSERT INTO "transfers" ("ledger_entry_id", "order_id", "kind", "debit_account", "credit_account", "currency", "amount_minor", "created_at")
SELECT l."id", l."order_id",
  CASE WHEN l."type" = 'credit_grant' THEN 'credit_grant' WHEN l."type" = 'topup' THEN 'topup' WHEN l."type" = 'adjustment' THEN 'adjustment'
    WHEN l."direction" = 'debit' THEN 'sale_net' ELSE 'supplier_refund' END,
  CASE WHEN l."direction" = 'credit' THEN c."other" ELSE c."own" END,
  CASE WHEN l."direction" = 'credit' THEN c."own" ELSE c."other" END,
  w."currency", l."amount_minor", l."created_at"
FROM "ledger_entries" l
JOIN "wallets" w ON w."partner_id" = l."partner_id"
LEFT JOIN "orders" o ON o."id" = l."order_id"
CROSS JOIN LATERAL (SELECT
  CASE WHEN l."type" = 'credit_grant' THEN 'credit_line:' ELSE 'wallet:' END || l."partner_id" AS "own",
  CASE l."type" WHEN 'credit_grant' THEN 'credit_extended:' || w."currency" WHEN 'topup' THEN 'funding:' || w."currency"
    WHEN 'adjustment' THEN 'adjustments:' || w."currency" ELSE 'supplier:' || coalesce(o."supplier", 'simulator') || ':' || w."currency" END AS "other") c
ORDER BY l."id";
