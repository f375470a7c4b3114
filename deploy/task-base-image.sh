#!/usr/bin/env bash
# The base image of the docker backend's test tasks, for an engine without a registry: Debian
# bookworm (minbase + python3, pytest and `tree`, a tool the host lacks) from Debian's packages with
# mmdebstrap, cached as a tar in $VERDICT_IMAGE_CACHE (as deploy/test-image.sh caches its base),
# then `podman import`ed. Usage: task-base-image.sh PODMAN_ARGS… (e.g. --root DIR --runroot DIR).
# Idempotent and serialised with flock: parallel test files call it at once.
set -euo pipefail
image=localhost/verdict-task-base:bookworm
cache=${VERDICT_IMAGE_CACHE:-/var/tmp/verdict-image-cache}
mkdir -p "$cache"
exec 9>"$cache/task-base.lock"
flock 9
podman "$@" image exists "$image" && exit 0
if [ ! -s "$cache/task-base.tar" ]; then
  rm -rf "$cache/task-base.dir"
  mmdebstrap --variant=minbase --include=python3,python3-pytest,tree \
    --aptopt='APT::Install-Recommends "false"' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    bookworm "$cache/task-base.dir" http://deb.debian.org/debian >&2
  rm -rf "$cache/task-base.dir/var/lib/apt/lists/"* "$cache/task-base.dir/var/cache/apt/"*
  tar -C "$cache/task-base.dir" -cf "$cache/task-base.tar.part" .
  rm -rf "$cache/task-base.dir"
  mv "$cache/task-base.tar.part" "$cache/task-base.tar"
fi
podman "$@" import --quiet --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["sleep","infinity"]' "$cache/task-base.tar" "$image" >/dev/null
