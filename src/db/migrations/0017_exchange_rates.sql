CREATE TABLE "exchange_rates" (
	"id" serial PRIMARY KEY NOT NULL,
	"currency" text NOT NULL,
	"wallet_currency" text NOT NULL,
	"rate_amount" bigint NOT NULL,
	"rate_scale" integer NOT NULL,
	"set_by" text NOT NULL,
	"set_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exchange_rates_rate_positive" CHECK ("exchange_rates"."rate_amount" > 0),
	CONSTRAINT "exchange_rates_scale_range" CHECK ("exchange_rates"."rate_scale" BETWEEN 0 AND 12)
);
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "supplier_amount_minor" bigint;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "supplier_currency" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "fx_rate_amount" bigint;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "fx_rate_scale" integer;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "fx_rate_id" integer;--> statement-breakpoint
CREATE INDEX "exchange_rates_pair_idx" ON "exchange_rates" USING btree ("currency","wallet_currency","id");--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_fx_rate_id_exchange_rates_id_fk" FOREIGN KEY ("fx_rate_id") REFERENCES "public"."exchange_rates"("id") ON DELETE no action ON UPDATE no action;