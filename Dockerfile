# MAGIS as a container image: `magis serve` (the GitHub App) as a non-root user, with bubblewrap for the repositories'
# commands. docs/deploy.md says how to build, run and deploy it, and which privileges the container needs.
#
#   docker build -t magis:0.1.0 .                              (the App; `npm run test:image` builds and checks it)
#   docker build --target universal -t magis:0.1.0-universal .  (the App and Debian's common toolchains)
#   docker run --init -p 3000:3000 --env-file .env -v magis-data:/data \
#     --cap-drop=ALL --security-opt no-new-privileges \
#     --security-opt seccomp=deploy/docker/seccomp-bubblewrap.json --security-opt systempaths=unconfined \
#     --security-opt apparmor=unconfined magis:0.1.0
#
# NODE_IMAGE: any Debian-based image with Node 20 and npm on its PATH (the image test builds on a local one).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 downloads a prebuilt binary when one exists for this platform and Node; otherwise it compiles
# SQLite, which needs these. They stay in this stage.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# Dependencies first, so that a change of the sources reuses this layer. Scripts are off because `prepare` would
# build dist/ before the sources are here; the one native module MAGIS loads, better-sqlite3, is built by the rebuild
# (tree-sitter-bash's native module is never loaded: only its wasm grammar is, by src/edit/syntax/load-parser.ts).
RUN npm ci --ignore-scripts --no-audit --no-fund \
  && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build \
  # Optional packages go too, pg-cloudflare (for Cloudflare Workers) among them; the scope folders that pruning
  # empties go with them. typescript stays: the TypeScript language server runs on it.
  && npm prune --omit=dev --omit=optional --no-audit --no-fund \
  && find node_modules -mindepth 1 -maxdepth 1 -type d -empty -delete \
  # Type declarations and source maps, which nothing loads at run time (dist/ keeps its maps for stack traces), but
  # typescript's own lib.*.d.ts, which the TypeScript language server reads; and tree-sitter-bash's C sources and
  # prebuilt modules.
  && find node_modules -type f -not -path 'node_modules/typescript/lib/*' \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' \) -delete \
  && rm -rf node_modules/tree-sitter-bash/src node_modules/tree-sitter-bash/prebuilds \
  # Of better-sqlite3's build, only the module it loads: SQLite's sources and object files are most of its size.
  && cd node_modules/better-sqlite3 \
  && mv build/Release/better_sqlite3.node . \
  && rm -rf build deps src \
  && mkdir -p build/Release \
  && mv better_sqlite3.node build/Release/

FROM ${NODE_IMAGE} AS app
# bubblewrap makes the sandbox each repository command runs in (MAGIS_SANDBOX=auto finds it); util-linux brings the
# prlimit that sets the commands' limits (and setpriv, used when the bot runs as root). As the user below, bwrap needs
# unprivileged user namespaces and a /proc it may mount again: docs/deploy.md gives the container's flags. apt-get
# clean: a base without Docker's apt configuration would keep apt's 80 MB package caches.
RUN apt-get update \
  && apt-get install -y --no-install-recommends bubblewrap util-linux \
  && apt-get clean \
  && rm -rf /var/lib/apt/lists/*
# A user of its own with a fixed id (deploy/kubernetes/magis.yaml's runAsUser), owning only the two folders it writes:
# /work (checkouts, kept objects, the web role's spool) and /data (the SQLite file and the traces).
RUN groupadd --system --gid 10001 magis \
  && useradd --system --uid 10001 --gid magis --home-dir /data --no-create-home --shell /usr/sbin/nologin magis \
  && mkdir -p /work /data \
  && chown magis:magis /work /data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json app.yml ./
COPY bin ./bin
COPY prompts ./prompts
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=3000 \
  MAGIS_WORKDIR=/work \
  MAGIS_DB=/data/magis.db
USER 10001:10001
# Webhooks at /api/github/webhooks and /healthz, /readyz, /metrics, all on PORT (a worker serves only the last three).
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/magis.js"]
CMD ["serve"]

# `--target universal`: the App with Debian's common toolchains, for repositories that bring no image of their own.
# Their setup and test commands see them through the sandbox's read-only /usr: Python 3 with venv, pip and its
# headers, a C and C++ toolchain (build-essential), Go, a Java 17 JDK with Maven, and git; Node and npm are the App's.
FROM app AS universal
USER root
RUN apt-get update \
  && apt-get install -y --no-install-recommends \
    python3 python3-venv python3-pip python3-dev build-essential golang-go default-jdk-headless maven git ca-certificates \
  && apt-get clean \
  && rm -rf /var/lib/apt/lists/*
USER 10001:10001

# The default target (a plain `docker build`) is the App alone.
FROM app
