-- What every order's status change costs in writing its event.
--
-- The feeds read a partner's events by position (events_partner_position_idx,
-- events_partner_type_position_idx), which also serve the partner's foreign key; the index
-- on (partner_id, id) served the feed before events had positions (0014), and is only
-- written now.
DROP INDEX "events_partner_idx";
--> statement-breakpoint
-- The event's type from the change alone, a simple expression PL/pgSQL evaluates without
-- planning it; only a cancellation looks for an agency's hotel booking, in a query of its
-- own (the CASE held that query, so every change was planned as a query).
CREATE OR REPLACE FUNCTION orders_record_events() RETURNS trigger LANGUAGE plpgsql AS $$
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
      WHEN NEW.status = 'cancelled' THEN 'order.cancelled'
      WHEN NEW.status = 'failed' THEN 'order.failed'
    END;
    IF kind = 'order.cancelled' THEN
      IF EXISTS (SELECT 1 FROM hotel_bookings b WHERE b.order_id = NEW.id AND b.agency IS NOT NULL) THEN
        kind := 'booking.cancelled';
      END IF;
    END IF;
    IF kind IS NOT NULL THEN
      INSERT INTO events (type, partner_id, order_id, data, position)
        VALUES (kind, NEW.partner_id, NEW.id, to_jsonb(NEW), event_position(NEW.partner_id));
    END IF;
  END IF;
  IF NEW.details->'service_status' IS DISTINCT FROM OLD.details->'service_status'
     AND NEW.details->>'service_status' IN ('approved', 'rejected') THEN
    INSERT INTO events (type, partner_id, order_id, data, position)
      VALUES ('visa.decided', NEW.partner_id, NEW.id, to_jsonb(NEW), event_position(NEW.partner_id));
  END IF;
  RETURN NULL;
END
$$;
