CREATE INDEX "events_order_position_idx" ON "events" USING btree ("order_id","position");--> statement-breakpoint
-- The outbox's fan-out, as in 0012, except for operator-only events (src/domain/events.ts,
-- OPERATOR_EVENT_TYPES): they are kept for operators and never owed to an endpoint, even
-- one that takes every type.
CREATE OR REPLACE FUNCTION events_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.type IN ('order.needs_attention') THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_deliveries (endpoint_id, event_id)
  SELECT e.id, NEW.id FROM webhook_endpoints e
  WHERE e.partner_id = NEW.partner_id
    AND e.status = 'enabled'
    AND (jsonb_array_length(e.event_types) = 0 OR e.event_types ? NEW.type);
  RETURN NULL;
END
$$;
