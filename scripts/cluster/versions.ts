/**
 * The Temporal release the engine's production shape runs, in one place: `npm run cluster`
 * builds and runs this server, its schema tool and the Web UI's server locally (from the Go
 * module proxy), and docker-compose.yml runs the same releases from Temporal's images.
 * test/unit/compose.test.ts fails when the compose file's images drift from these constants.
 */

/** temporalio/server image tag, and the `go install go.temporal.io/server/...@v<this>` version. */
export const TEMPORAL_SERVER_VERSION = '1.29.1';

/** Go modules of the server and its SQL schema tool (which embeds the PostgreSQL schemas). */
export const TEMPORAL_SERVER_MODULE = `go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION}`;
export const TEMPORAL_SQL_TOOL_MODULE = `go.temporal.io/server/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`;

/**
 * temporalio/admin-tools tag published with that server release (it names the bundled
 * tctl and Temporal CLI versions; the image carries temporal-sql-tool of the same server
 * release, which setup.sh runs).
 */
export const TEMPORAL_ADMIN_TOOLS_TAG = `${TEMPORAL_SERVER_VERSION}-tctl-1.18.4-cli-1.5.0`;

/** temporalio/ui tag (the Web UI releases separately from the server); locally, the ui-server Go module of the same version, which embeds the UI. */
export const TEMPORAL_UI_VERSION = '2.42.1';
export const TEMPORAL_UI_SERVER_MODULE = `github.com/temporalio/ui-server/v2/cmd/server@v${TEMPORAL_UI_VERSION}`;

export const TEMPORAL_SERVER_IMAGE = `temporalio/server:${TEMPORAL_SERVER_VERSION}`;
export const TEMPORAL_ADMIN_TOOLS_IMAGE = `temporalio/admin-tools:${TEMPORAL_ADMIN_TOOLS_TAG}`;
export const TEMPORAL_UI_IMAGE = `temporalio/ui:${TEMPORAL_UI_VERSION}`;
