#!/usr/bin/env bash
# `npm run test:image`: builds the image from the Dockerfile and runs it as a pod would, on a machine
# without an image registry and without a container runtime that can set rlimits:
#   1. the base (Debian trixie + nodejs) from Debian's packages with mmdebstrap, imported into
#      buildah (cached in $VERDICT_IMAGE_CACHE between runs);
#   2. `buildah bud --isolation chroot` of the Dockerfile;
#   3. the image's root filesystem (`buildah mount`) run under an outer bubblewrap that gives what a
#      Kubernetes pod with `hostUsers: false` and `procMount: Unmasked` gives: a user namespace in
#      which the process is the image's non-root user (uid 10001), /proc not masked, the host's
#      network (loopback) — and the image's own entrypoint and arguments;
#   4. the bundled example batch scored through it over gRPC (`verdict score --server`), a sandboxed
#      code sample included, each result checked; then SIGTERM: the server drains and exits 0.
# Needs root (buildah's storage), mmdebstrap, buildah, bubblewrap. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cache=${VERDICT_IMAGE_CACHE:-/var/tmp/verdict-image-cache}
work=$(mktemp -d)
base=localhost/verdict-base:trixie
image=localhost/verdict:test
mkdir -p "$cache"
server_pid=""; ctr=""
cleanup() {
  [ -n "$server_pid" ] && kill -9 "$server_pid" 2>/dev/null || true
  [ -n "$ctr" ] && { buildah umount "$ctr" >/dev/null 2>&1 || true; buildah rm "$ctr" >/dev/null 2>&1 || true; }
  rm -rf "$work"
}
trap cleanup EXIT
step() { printf '\n== %s (%ss)\n' "$1" "$SECONDS"; }

step "base image $base"
if ! buildah inspect --type image "$base" >/dev/null 2>&1; then
  if [ ! -s "$cache/base.tar" ]; then
    mmdebstrap --variant=minbase --include=nodejs,ca-certificates \
      --aptopt='APT::Install-Recommends "false"' \
      --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
      --dpkgopt='path-exclude=/usr/share/locale/*' \
      trixie "$cache/base.tar.part" http://deb.debian.org/debian
    mv "$cache/base.tar.part" "$cache/base.tar"
  fi
  c=$(buildah from scratch)
  buildah add --quiet "$c" "$cache/base.tar" / >/dev/null
  buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$c"
  buildah commit --quiet "$c" "$base" >/dev/null
  buildah rm "$c" >/dev/null
fi

step "buildah bud $image"
# The build host's CA bundle, for a registry reached through a TLS-inspecting proxy (see the Dockerfile).
buildah bud --isolation chroot --layers --format docker --quiet -t "$image" \
  --volume /etc/ssl/certs/ca-certificates.crt:/run/build-ca.crt:ro --build-arg NPM_CAFILE=/run/build-ca.crt \
  "$root" >/dev/null
buildah inspect --type image --format '{{.Docker.Config.User}} {{.Docker.Config.Entrypoint}} {{.Docker.Config.Cmd}} healthcheck={{.Docker.Config.Healthcheck.Test}}' "$image"
if buildah run --isolation chroot "$(buildah from --quiet "$image")" -- sh -c 'command -v g++ || command -v make || command -v npm' 2>/dev/null; then
  echo "FAIL: build tools in the runtime image"; exit 1
fi

step "run the image's entrypoint as uid 10001 in a user namespace, /proc unmasked"
ctr=$(buildah from --quiet "$image")
rootfs=$(buildah mount "$ctr")
entrypoint=$(buildah inspect --type image --format '{{range .Docker.Config.Entrypoint}}{{.}} {{end}}' "$image")
port=$((20000 + RANDOM % 20000)); http_port=$((port + 1))
cp deploy/base/verdict.yaml "$work/verdict.yaml"
# The image's environment (its ENV lines), as a container runtime gives it to the process.
image_env=()
while IFS= read -r kv; do
  [ -n "$kv" ] && image_env+=(--setenv "${kv%%=*}" "${kv#*=}")
done < <(buildah inspect --type image --format '{{range .Docker.Config.Env}}{{println .}}{{end}}' "$image")
# The image's CMD with the pod's arguments (loopback here instead of 0.0.0.0, and a config file).
# shellcheck disable=SC2086
bwrap --unshare-user --uid 10001 --gid 10001 --unshare-ipc --unshare-uts --die-with-parent \
  --bind "$rootfs" / --bind /proc /proc --dev-bind /dev /dev --tmpfs /tmp \
  --ro-bind "$work/verdict.yaml" /etc/verdict/verdict.yaml \
  --chdir /app "${image_env[@]}" --setenv HOME /home/verdict --setenv PATH /usr/bin:/bin \
  -- $entrypoint serve --host=127.0.0.1 --port=$port --http-port=$http_port --config=/etc/verdict/verdict.yaml --drain-ms=5000 \
  > "$work/server.log" 2>&1 &
bwrap_pid=$!
for _ in $(seq 1 120); do
  grep -q '"msg":"serving' "$work/server.log" 2>/dev/null && break
  kill -0 "$bwrap_pid" 2>/dev/null || { cat "$work/server.log"; echo "FAIL: the server exited"; exit 1; }
  sleep 0.5
done
grep -q '"msg":"serving' "$work/server.log" || { cat "$work/server.log"; echo "FAIL: the server did not start"; exit 1; }
server_pid=$(pgrep -P "$bwrap_pid" | head -1)
echo "server pid $server_pid: host uid $(awk '/^Uid/ {print $2}' /proc/"$server_pid"/status), uid $(awk '/^Uid/ {print $2}' /proc/"$server_pid"/status | xargs -I{} awk -v u={} '$2 == u {print $1}' /proc/"$server_pid"/uid_map) in its user namespace"
grep -o '"sandbox":[^,}]*' "$work/server.log" | head -1
tr '\0' '\n' < /proc/"$server_pid"/environ | grep -qx 'MALLOC_MMAP_THRESHOLD_=131072' \
  || { echo "FAIL: the server did not get the image's MALLOC_MMAP_THRESHOLD_"; exit 1; }

step "score the example batch through it"
set +e
node bin/verdict.js score examples/batch.jsonl --server "127.0.0.1:$port" -o "$work/results.jsonl" --max-invalid 0.2 > "$work/summary.txt" 2>&1
rc=$?
set -e
cat "$work/summary.txt"
[ "$rc" = 0 ] || { echo "FAIL: verdict score exited $rc"; tail -20 "$work/server.log"; exit 1; }
node -e '
const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => JSON.parse(l));
const input = require("fs").readFileSync("examples/batch.jsonl", "utf8").split("\n").filter((l) => l.trim() !== "").length;
const fail = (m) => { console.error("FAIL: " + m); process.exit(1); };
if (rows.length !== input) fail(`${rows.length} results for ${input} lines`);
const aborted = rows.filter((r) => r.status === "STATUS_ABORTED");
if (aborted.length) fail("ABORTED: " + JSON.stringify(aborted.map((r) => [r.id, r.reason])));
const code = rows.filter((r) => r.verifier === "code");
if (!code.some((r) => r.status === "STATUS_OK" && r.reward === 1)) fail("no code sample rewarded 1 by the sandbox: " + JSON.stringify(code));
if (!code.some((r) => r.status === "STATUS_OK" && r.reward === 0)) fail("no code sample rewarded 0 by the sandbox");
console.log(`${rows.length} results, ${code.length} code samples scored in the sandbox, none ABORTED`);
' "$work/results.jsonl"

step "SIGTERM: drain and exit 0"
kill -TERM "$server_pid"
set +e
wait "$bwrap_pid"
rc=$?
set -e
grep -q '"msg":"stopped' "$work/server.log" || { tail -5 "$work/server.log"; echo "FAIL: no stop line"; exit 1; }
[ "$rc" = 0 ] || { echo "FAIL: the server exited $rc after SIGTERM"; exit 1; }
server_pid=""
printf '\nimage test passed in %ss; image size %s\n' "$SECONDS" "$(buildah images --format '{{.Size}}' "$image")"
