CREATE TABLE "wallet_alert_settings" (
	"partner_id" integer PRIMARY KEY NOT NULL,
	"thresholds" integer[] NOT NULL,
	"prepaid_base_minor" bigint,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "wallet_alert_thresholds_percent" CHECK (0 < all("wallet_alert_settings"."thresholds") and 100 > all("wallet_alert_settings"."thresholds") and cardinality("wallet_alert_settings"."thresholds") <= 5),
	CONSTRAINT "wallet_alert_prepaid_base_positive" CHECK ("wallet_alert_settings"."prepaid_base_minor" is null or "wallet_alert_settings"."prepaid_base_minor" > 0)
);
--> statement-breakpoint
ALTER TABLE "wallet_alert_settings" ADD CONSTRAINT "wallet_alert_settings_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- Credit alerts (docs/decisions/credit-alerts.md). The thresholds a partner without a row
-- of its own has: whole percents of credit left.
CREATE FUNCTION wallet_alert_default_thresholds() RETURNS integer[] LANGUAGE sql IMMUTABLE AS $$ SELECT '{40,20}'::integer[] $$;
--> statement-breakpoint
-- The lowest of `thresholds` that `available` is below, as a share of `base` (the credit
-- limit, or a prepaid partner's base); null when it is below none, or there is no base.
CREATE FUNCTION wallet_alert_level(available bigint, base bigint, thresholds integer[]) RETURNS integer LANGUAGE sql IMMUTABLE AS $$
  SELECT min(t) FROM unnest(thresholds) AS t WHERE base > 0 AND available::numeric * 100 < t::numeric * base
$$;
--> statement-breakpoint
-- What the shares of a wallet are of: its credit limit, or without one the prepaid base.
CREATE FUNCTION wallet_alert_base(credit_limit bigint, prepaid_base bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN credit_limit > 0 THEN credit_limit ELSE prepaid_base END
$$;
--> statement-breakpoint
-- `wallet.low_balance`, written in the transaction of the movement that crossed a threshold,
-- whichever code path (or operator's SQL) moved the wallet: once per crossing, since it
-- compares the wallet before and after. A movement that crosses several thresholds writes
-- one event, naming the lowest. `data` keeps the wallet in minor units; src/domain/events.ts
-- renders it in the reader's style.
CREATE FUNCTION wallets_low_balance() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  thresholds integer[];
  prepaid bigint;
  base bigint;
  was integer;
  now_below integer;
BEGIN
  -- No row of its own (thresholds null): the defaults, and no prepaid base.
  SELECT s.thresholds, s.prepaid_base_minor INTO thresholds, prepaid FROM wallet_alert_settings s WHERE s.partner_id = NEW.partner_id;
  base := wallet_alert_base(NEW.credit_limit_minor, prepaid);
  -- A prepaid partner without a base gets no alerts.
  IF base IS NULL THEN
    RETURN NULL;
  END IF;
  IF thresholds IS NULL THEN
    thresholds := wallet_alert_default_thresholds();
  END IF;
  now_below := wallet_alert_level(NEW.balance_minor + NEW.credit_limit_minor, base, thresholds);
  IF now_below IS NULL THEN
    RETURN NULL;
  END IF;
  was := wallet_alert_level(OLD.balance_minor + OLD.credit_limit_minor, wallet_alert_base(OLD.credit_limit_minor, prepaid), thresholds);
  IF was IS NOT NULL AND was <= now_below THEN
    RETURN NULL;
  END IF;
  INSERT INTO events (type, partner_id, data) VALUES ('wallet.low_balance', NEW.partner_id, jsonb_build_object(
    'balance_minor', NEW.balance_minor, 'credit_limit_minor', NEW.credit_limit_minor, 'currency', NEW.currency,
    'updated_at', NEW.updated_at, 'threshold', now_below));
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Only a movement that lowers what is available, or changes the credit limit, can cross; and
-- a partner with credit is below a threshold (at most 99%) only with a negative balance. So
-- a payment from a wallet still in credit does not call the function at all.
CREATE TRIGGER wallets_low_balance AFTER UPDATE OF balance_minor, credit_limit_minor ON wallets FOR EACH ROW
  WHEN ((NEW.balance_minor < OLD.balance_minor OR NEW.credit_limit_minor <> OLD.credit_limit_minor)
    AND (NEW.balance_minor < 0 OR NEW.credit_limit_minor = 0))
  EXECUTE FUNCTION wallets_low_balance();
