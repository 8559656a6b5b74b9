DROP INDEX "events_partner_type_idx";--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "position" bigint;--> statement-breakpoint
CREATE UNIQUE INDEX "events_position_uq" ON "events" USING btree ("position");--> statement-breakpoint
CREATE INDEX "events_partner_type_position_idx" ON "events" USING btree ("partner_id","type","position");--> statement-breakpoint
CREATE INDEX "events_partner_position_idx" ON "events" USING btree ("partner_id","position");--> statement-breakpoint
-- An event's public id (its feed position) is given when its transaction commits, under a
-- lock per partner held to the end of the commit: a partner's events are numbered in the
-- order their transactions commit, so a reader that has seen N will never later find a
-- committed event below N (ids given at insert are in insert order, and a transaction
-- that inserted earlier can commit later). The trigger is deferred to commit, when the
-- transaction takes no other lock, so waiting on it cannot deadlock.
CREATE SEQUENCE "events_position_seq";
--> statement-breakpoint
UPDATE "events" SET "position" = "id" WHERE "position" IS NULL;
--> statement-breakpoint
SELECT setval('events_position_seq', GREATEST(m, 1), m > 0) FROM (SELECT COALESCE(MAX("position"), 0) AS m FROM "events") AS numbered;
--> statement-breakpoint
CREATE FUNCTION events_number_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('events_position'), NEW.partner_id);
  UPDATE events SET position = nextval('events_position_seq') WHERE id = NEW.id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER events_number_at_commit AFTER INSERT ON events DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION events_number_at_commit();
