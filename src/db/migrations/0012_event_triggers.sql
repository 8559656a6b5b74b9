-- Events for partners, written in the transaction of the change that causes them.
-- Every move of an order's status, and a visa's decision, passes through this trigger,
-- whichever code path (or operator's SQL) made it; src/domain/events.ts names the types.
CREATE FUNCTION orders_record_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kind text;
BEGIN
  IF NEW.status IS DISTINCT FROM OLD.status THEN
    kind := CASE
      WHEN NEW.status = 'processing' THEN 'order.processing'
      WHEN NEW.status = 'completed' AND OLD.status = 'refund_requested' THEN 'refund.rejected'
      WHEN NEW.status = 'completed' AND NEW.service = 'product' THEN 'product_order.shipped'
      WHEN NEW.status = 'completed' THEN 'order.completed'
      WHEN OLD.status = 'processing' AND NEW.status IN ('pending', 'failed') THEN 'order.payment_reversed'
      WHEN NEW.status = 'expired' THEN 'order.expired'
      WHEN NEW.status = 'refund_requested' THEN 'refund.requested'
      WHEN NEW.status = 'refunded' THEN 'refund.completed'
      WHEN NEW.status = 'cancelled' AND NEW.service = 'residence' THEN 'reservation.cancelled'
      WHEN NEW.status = 'cancelled' AND EXISTS (
        SELECT 1 FROM hotel_bookings b WHERE b.order_id = NEW.id AND b.agency IS NOT NULL
      ) THEN 'booking.cancelled'
      WHEN NEW.status = 'cancelled' THEN 'order.cancelled'
      WHEN NEW.status = 'failed' THEN 'order.failed'
    END;
    IF kind IS NOT NULL THEN
      INSERT INTO events (type, partner_id, order_id, data) VALUES (kind, NEW.partner_id, NEW.id, to_jsonb(NEW));
    END IF;
  END IF;
  IF NEW.details->'service_status' IS DISTINCT FROM OLD.details->'service_status'
     AND NEW.details->>'service_status' IN ('approved', 'rejected') THEN
    INSERT INTO events (type, partner_id, order_id, data) VALUES ('visa.decided', NEW.partner_id, NEW.id, to_jsonb(NEW));
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER orders_record_events AFTER UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION orders_record_events();
--> statement-breakpoint
-- The outbox's fan-out: each new event is owed to every enabled endpoint of its partner
-- that takes its type (an empty list takes every type), in the same transaction.
CREATE FUNCTION events_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (endpoint_id, event_id)
  SELECT e.id, NEW.id FROM webhook_endpoints e
  WHERE e.partner_id = NEW.partner_id
    AND e.status = 'enabled'
    AND (jsonb_array_length(e.event_types) = 0 OR e.event_types ? NEW.type);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER events_fan_out AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION events_fan_out();
