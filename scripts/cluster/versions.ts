/**
 * The Temporal release the production shape runs: `npm run cluster` builds and runs this
 * server and schema tool, and docker-compose.yml must use the images of the same release
 * (test/unit/compose.test.ts checks it).
 */
export const TEMPORAL_SERVER_VERSION = '1.29.1';

/** Go modules of the server and its SQL schema tool (which embeds the PostgreSQL schemas). */
export const TEMPORAL_SERVER_MODULE = `go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION}`;
export const TEMPORAL_SQL_TOOL_MODULE = `go.temporal.io/server/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`;
