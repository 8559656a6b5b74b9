ALTER TABLE "webhook_attempts" ADD COLUMN "failure" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "disabled_detail" text;--> statement-breakpoint
-- Partners are told the rule only: what follows the engine's own words in a stored reason
-- (the endpoint's answer, an address, an error) moves to the operators' detail.
UPDATE "webhook_endpoints"
SET "disabled_detail" = "disabled_reason",
    "disabled_reason" = split_part("disabled_reason", '; ', 1)
WHERE "disabled_reason" LIKE '%; %';--> statement-breakpoint
UPDATE "events"
SET "data" = jsonb_set("data", '{disabled_reason}', to_jsonb(split_part("data"->>'disabled_reason', '; ', 1)))
WHERE "type" = 'webhook_endpoint.disabled' AND "data"->>'disabled_reason' LIKE '%; %';
