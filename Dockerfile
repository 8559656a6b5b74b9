# One image for every process (api, worker, simulator); docker-compose.yml picks the
# npm script per service. There is no build step: tsx runs the TypeScript sources.
FROM node:20-bookworm-slim

WORKDIR /app

# Each `npm run` would otherwise try to reach the registry for an update check.
ENV NPM_CONFIG_UPDATE_NOTIFIER=false

# Manifests first so the dependency layer is reused while only sources change.
# tsx is a regular dependency, so dev dependencies (jest, typescript, drizzle-kit) can go.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

# The worker bundles workflows/ with webpack at start-up, and the migrations are read
# from src/db/migrations at run time, so the sources themselves are the artefact.
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker

# DATA_DIR (default .data) is unused when DATABASE_URL, TEMPORAL_ADDRESS and ADMIN_TOKEN
# are set, but must stay writable for the non-root user if one of them is left out.
RUN mkdir -p /app/.data && chown node:node /app/.data

USER node

# 8080 public API, 8081 admin API, 8090 supplier simulator, 9464 worker metrics (npm run worker).
EXPOSE 8080 8081 8090 9464

CMD ["npm", "run", "api"]
