-- An order's status change is written as its event when its transaction commits, with its
-- position, in one write: inserted without one and updated at commit, as 0014 numbered it,
-- each event took a second row version and a second entry in each of the events' indexes.
-- The trigger is deferred as 0014's is, so it takes the partner's numbering lock when the
-- transaction takes no other lock; it reads the order's row as that update left it, so each
-- change's event holds the order as that change made it.
--
-- An event's position, drawn under its partner's numbering lock (held to the end of the
-- transaction): one partner's events are numbered in the order their transactions commit.
CREATE FUNCTION event_position(partner integer) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('events_position'), partner);
  RETURN nextval('events_position_seq');
END
$$;
--> statement-breakpoint
-- Events the code writes without a position are numbered at commit, as in 0014.
CREATE OR REPLACE FUNCTION events_number_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE events SET position = event_position(NEW.partner_id) WHERE id = NEW.id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
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
      WHEN NEW.status = 'cancelled' AND EXISTS (
        SELECT 1 FROM hotel_bookings b WHERE b.order_id = NEW.id AND b.agency IS NOT NULL
      ) THEN 'booking.cancelled'
      WHEN NEW.status = 'cancelled' THEN 'order.cancelled'
      WHEN NEW.status = 'failed' THEN 'order.failed'
    END;
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
--> statement-breakpoint
DROP TRIGGER orders_record_events ON orders;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER orders_record_events AFTER UPDATE ON orders DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION orders_record_events();
--> statement-breakpoint
-- Only an event written without a position is numbered by 0014's trigger.
DROP TRIGGER events_number_at_commit ON events;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER events_number_at_commit AFTER INSERT ON events DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.position IS NULL) EXECUTE FUNCTION events_number_at_commit();
