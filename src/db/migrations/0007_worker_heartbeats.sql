CREATE TABLE "worker_heartbeats" (
	"identity" text PRIMARY KEY NOT NULL,
	"task_queue" text NOT NULL,
	"interval_ms" integer NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "worker_heartbeats_queue_idx" ON "worker_heartbeats" USING btree ("task_queue","last_seen");