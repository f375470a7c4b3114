# Verdict's image. Two stages: `build` compiles the TypeScript and the native addons (isolated-vm,
# better-sqlite3) with Debian's toolchain against its shared libnode (hence the -dev packages of what libnode links); the runtime stage has Node 20, bubblewrap and python3 and
# no build tools, and runs as a non-root user with the server as PID 1 (node handles SIGTERM itself:
# health NOT_SERVING, drain for --drain-ms, exit 0 — no npm or shell in between to swallow it).
#
# BASE is a Debian trixie root filesystem with nodejs: Debian 12 (bookworm) packages Node 18, and
# Verdict needs Node ≥ 20 (trixie has 20.19). No registry is needed: `npm run test:image` builds
# the base with mmdebstrap from Debian's packages and imports it (deploy/test-image.sh); elsewhere
# any Debian trixie image with nodejs installed will do (`--build-arg BASE=…`).
ARG BASE=localhost/verdict-base:trixie

FROM ${BASE} AS build
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends npm libnode-dev python3 make g++ \
    libbrotli-dev libc-ares-dev libicu-dev libnghttp2-dev libnghttp3-dev libngtcp2-dev libsimdjson-dev zlib1g-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# node-gyp builds the addons against Debian's Node headers (no download of Node's own).
ENV npm_config_nodedir=/usr
# Where the build host reaches the npm registry through a TLS-inspecting proxy, its CA bundle is
# mounted for the build (`--volume HOST_BUNDLE:/run/build-ca.crt:ro --build-arg NPM_CAFILE=/run/build-ca.crt`);
# nothing of it stays in the image.
ARG NPM_CAFILE=/etc/ssl/certs/ca-certificates.crt
COPY package.json package-lock.json ./
RUN npm_config_cafile="$NPM_CAFILE" npm ci --ignore-scripts && npm rebuild isolated-vm better-sqlite3
COPY . .
# Unit tests sit beside their modules (and compile beside them in dist/): they go with test/ and bench/.
RUN npm run build && npm prune --omit=dev --ignore-scripts && rm -rf test dist/test dist/bench bench \
 && find core verifiers rubrics curate audit services cli web dist -name '*.test.*' -type f -delete

FROM ${BASE}
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap python3 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 10001 --user-group --create-home --shell /usr/sbin/nologin verdict
WORKDIR /app
COPY --from=build --chown=root:root /app /app
# The judge cache and other state live under var/ (an emptyDir in the Kubernetes manifests).
RUN mkdir -p /app/var && chown verdict:verdict /app/var
USER 10001:10001
# glibc's malloc raises its mmap threshold to the size of each large block freed (up to 32 MiB):
# after one large request, buffers of a later one (frames, replies, pool chunks) come from the
# main arena, which returns to the system only what lies at its top. A fixed threshold keeps large
# buffers in mappings of their own, unmapped when freed: 30 s after a soak of 65,536-sample requests
# the arena held ~65 MiB instead of ~160 (`npm run bench -- serving` reads this line too).
ENV MALLOC_MMAP_THRESHOLD_=131072
EXPOSE 50051 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/verdict.js"]
CMD ["serve", "--host=0.0.0.0", "--port=50051", "--http-port=8080"]
