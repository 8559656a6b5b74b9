# One image for every process (api, worker, simulator); docker-compose.yml picks the npm
# script per service. Production runs the compiled JavaScript (npm run build: dist/), never
# the TypeScript sources: `npm run api` is `node dist/src/api.js`, `npm run worker` is
# `node dist/worker/main.js`, `npm run simulator` the simulator's. The admin CLI is
# `node dist/src/cli/admin.js` here (`docker compose exec api node dist/src/cli/admin.js …`).

# --- build: every dependency (typescript, tsx for the build script), the sources, dist/ ---
FROM node:20-bookworm-slim AS build

WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false

COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# dist/: the compiled code, the migrations beside the database client that reads them, and
# the workflow bundle the worker loads instead of bundling with webpack at start-up.
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.ts ./scripts/build.ts
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker
RUN npm run build

# --- runtime: production dependencies and dist/ only ---
FROM node:20-bookworm-slim

WORKDIR /app

# Each `npm run` would otherwise try to reach the registry for an update check.
ENV NPM_CONFIG_UPDATE_NOTIFIER=false

# Manifests first so the dependency layer is reused while only sources change.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY --from=build /app/dist ./dist

# DATA_DIR (default .data) is unused when DATABASE_URL, TEMPORAL_ADDRESS and ADMIN_TOKEN
# are set, but must stay writable for the non-root user if one of them is left out.
RUN mkdir -p /app/.data && chown node:node /app/.data

USER node

# 8080 public API, 8081 admin API, 8090 supplier simulator, 9464 worker metrics (npm run worker).
EXPOSE 8080 8081 8090 9464

CMD ["node", "--enable-source-maps", "dist/src/api.js"]
