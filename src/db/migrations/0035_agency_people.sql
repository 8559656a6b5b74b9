CREATE TABLE "agency_users" (
	"id" serial PRIMARY KEY NOT NULL,
	"partner_id" integer NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"own_bookings_only" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_connections" (
	"id" serial PRIMARY KEY NOT NULL,
	"partner_id" integer NOT NULL,
	"name" text NOT NULL,
	"interface" text NOT NULL,
	"api_key" text,
	"secret_hash" text,
	"key_hash" text,
	"rights" text[] NOT NULL,
	"user_id" integer,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"rotated_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_connections_api_key_unique" UNIQUE("api_key"),
	CONSTRAINT "api_connections_key_hash_unique" UNIQUE("key_hash"),
	CONSTRAINT "api_connections_credentials" CHECK (("api_connections"."interface" = 'a' and "api_connections"."api_key" is not null and "api_connections"."secret_hash" is not null and "api_connections"."key_hash" is null) or ("api_connections"."interface" = 'b' and "api_connections"."key_hash" is not null and "api_connections"."api_key" is null and "api_connections"."secret_hash" is null)),
	CONSTRAINT "api_connections_revoked" CHECK (("api_connections"."status" = 'revoked') = ("api_connections"."revoked_at" is not null))
);
--> statement-breakpoint
ALTER TABLE "partners" DROP CONSTRAINT "partners_api_key_unique";--> statement-breakpoint
ALTER TABLE "partners" DROP CONSTRAINT "partners_agency_key_hash_unique";--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD COLUMN "actor" jsonb;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "created_by" jsonb;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "acted_by" jsonb;--> statement-breakpoint
ALTER TABLE "agency_users" ADD CONSTRAINT "agency_users_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_connections" ADD CONSTRAINT "api_connections_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_connections" ADD CONSTRAINT "api_connections_user_id_agency_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."agency_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "agency_users_email_uq" ON "agency_users" USING btree ("partner_id",lower("email"));--> statement-breakpoint
CREATE INDEX "agency_users_partner_idx" ON "agency_users" USING btree ("partner_id","id");--> statement-breakpoint
CREATE INDEX "api_connections_partner_idx" ON "api_connections" USING btree ("partner_id","id");--> statement-breakpoint
CREATE INDEX "api_connections_user_idx" ON "api_connections" USING btree ("user_id");--> statement-breakpoint
-- Each partner's key and secret become its first Interface A connection, and its agency key
-- its first Interface B connection, with every right: a partner with no users behaves as before.
INSERT INTO "api_connections" ("partner_id", "name", "interface", "api_key", "secret_hash", "rights", "created_at")
SELECT "id", 'Interface A', 'a', "api_key", "secret_hash", ARRAY['search','book','pay','modify','view','documents','finance','webhooks','profile','users','connections','sub_agencies']::text[], "created_at" FROM "partners" ORDER BY "id";--> statement-breakpoint
INSERT INTO "api_connections" ("partner_id", "name", "interface", "key_hash", "rights", "created_at")
SELECT "id", 'Interface B', 'b', "agency_key_hash", ARRAY['search','book','pay','modify','view','documents','finance','webhooks','profile','users','connections','sub_agencies']::text[], "created_at" FROM "partners" ORDER BY "id";--> statement-breakpoint
ALTER TABLE "partners" DROP COLUMN "api_key";--> statement-breakpoint
ALTER TABLE "partners" DROP COLUMN "secret_hash";--> statement-breakpoint
ALTER TABLE "partners" DROP COLUMN "agency_key_hash";