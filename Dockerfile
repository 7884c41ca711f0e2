# syntax=docker/dockerfile:1
# propsync's container image: `docker build -t propsync .`; see docs/operating.md#run-with-docker-compose.
# The base is pinned by version (the same Node release as CI); pin it by digest too where the
# registry is reachable: FROM node:20.20.2-bookworm-slim@sha256:...

# Build stage: the dependencies, optional ones included (esbuild's binary for this machine is an
# optional dependency of esbuild; nothing else of this stage ships), then the bundled build in dist/.
FROM node:20.20.2-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY scripts/build.mjs ./scripts/build.mjs
COPY src ./src
COPY migrations ./migrations
RUN npm run build

# Production dependencies only: no test tooling, no TypeScript, no embedded Postgres (a beta
# development dependency, which only the demo and the tests start).
FROM node:20.20.2-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund \
  && npm cache clean --force

# Runtime stage: what `npm pack` ships (bin/ with the entry and its code cache's loader, dist/
# with the bundled migrations, the example configuration, README.md, package.json) plus the
# production node_modules, where the packages the bundle leaves out are found.
FROM node:20.20.2-bookworm-slim AS runtime
LABEL org.opencontainers.image.title="propsync" \
      org.opencontainers.image.description="Keeps a Postgres warehouse in step with a property-management system's web API (leases, AR, invoices)." \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.licenses="UNLICENSED" \
      org.opencontainers.image.base.name="docker.io/library/node:20.20.2-bookworm-slim"
# The heap limits and malloc arenas of bin/propsync.mjs's first line, which `node FILE` does not
# read: one process, no launcher (README, Benchmark, "Memory"); `docker run -e NODE_OPTIONS=...`
# chooses others. NODE_OPTIONS refuses --initial-old-space-size: the entrypoint passes it.
# The console stays off: on 0.0.0.0 it needs console.auth first (docs/console.md#access).
ENV NODE_ENV=production \
    NODE_OPTIONS="--max-old-space-size=160 --max-semi-space-size=8" \
    MALLOC_ARENA_MAX=2 \
    PROPSYNC_METRICS_HOST=0.0.0.0 \
    PROPSYNC_METRICS_PORT=9464 \
    PROPSYNC_CONSOLE_ENABLED=false
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json README.md ./
COPY bin/propsync.mjs bin/code-cache.mjs ./bin/
COPY --from=build /app/dist ./dist
COPY config/propsync.example.yaml ./config/propsync.example.yaml
# The image's unprivileged `node` user (uid 1000); the files above stay owned by root, read-only to it.
USER 1000:1000
EXPOSE 9464
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PROPSYNC_METRICS_PORT||9464)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "--initial-old-space-size=48", "/app/bin/propsync.mjs"]
CMD ["schedule"]
