#!/usr/bin/env bash
# Usage: scripts/confluent.sh [install]   # build once, then only check (idempotent)
#        scripts/confluent.sh --check     # say whether it is built; build nothing
#        scripts/confluent.sh --dir       # print the install directory
#
# @confluentinc/kafka-javascript, the maintained Kafka client the Kafka tests also run on
# (KAFKA_CLIENT=confluent), installed from the npm registry into
#   ${RETRY_TOPOLOGY_CACHE:-$HOME/.cache/retry-topology}/confluent-kafka-javascript-<version>
# from scripts/confluent/package-lock.json, outside the project's node_modules, and linked into
# test/confluent/node_modules, where the Confluent test kit and its type check find it.
#
# Why it looks like this:
# - It is a native addon, and its install step first downloads a prebuilt binary from GitHub,
#   which is not reachable here. `npm_config_build_from_source` skips that, and
#   `CKJS_LINKING=dynamic` builds the librdkafka source the package ships (2.15.1 for 1.10.1)
#   as a shared library linked against Debian's OpenSSL, SASL, zlib, zstd and lz4, instead of
#   downloading those sources for a static build. Debian bookworm's own librdkafka (2.0.2) is
#   too old for any 1.x release (the addon uses rd_kafka_Uuid_t, ListOffsets, DescribeTopics).
# - Outside node_modules, so `npm ci` needs no compiler and no system library, and does not
#   rebuild it (about 2.5 min on a quiet 2-core machine, 8 min on a loaded one): the build
#   is cached and reused until the lock file changes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

VERSION=1.10.1
SPEC=scripts/confluent
CACHE="${RETRY_TOPOLOGY_CACHE:-$HOME/.cache/retry-topology}"
DIR="$CACHE/confluent-kafka-javascript-$VERSION"
MODULE="$DIR/node_modules/@confluentinc/kafka-javascript"
STAMP="$DIR/.built-from"
# Debian packages the build needs: a C/C++ toolchain and the libraries librdkafka links to.
PACKAGES=(g++ make python3 pkg-config libssl-dev libsasl2-dev zlib1g-dev libzstd-dev liblz4-dev)

say() { echo "confluent: $*"; }
die() { echo "confluent: ERROR: $*" >&2; exit 1; }

lock_sum() { sha256sum "$SPEC/package-lock.json" | cut -d' ' -f1; }

ready() {
  [[ -f $STAMP && "$(cat "$STAMP")" == "$(lock_sum)" ]] || return 1
  node -e "const k = require(process.argv[1]); if (!k.KafkaJS) process.exit(1)" "$MODULE" 2>/dev/null
}

link() {
  mkdir -p test/confluent/node_modules/@confluentinc
  ln -sfn "$MODULE" test/confluent/node_modules/@confluentinc/kafka-javascript
}

describe() {
  node -e "console.log(require(process.argv[1]).librdkafkaVersion)" "$MODULE"
}

case "${1:-install}" in
  --dir)
    echo "$DIR"
    exit 0
    ;;
  --check)
    if ready; then say "ready: $VERSION (librdkafka $(describe)) in $DIR"; exit 0; fi
    say "not built (scripts/confluent.sh builds it)"
    exit 1
    ;;
  install) ;;
  *) die "unknown argument: $1" ;;
esac

# One build at a time on a machine (CI and a developer, or two test runs, may start it at once).
mkdir -p "$CACHE"
exec 9>"$DIR.lock"
flock 9
if ready; then
  link
  say "ready: $VERSION (librdkafka $(describe)), cached"
  exit 0
fi
# What an interrupted build left behind.
rm -rf "$DIR".tmp.*

missing=()
for package in "${PACKAGES[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if ((${#missing[@]} > 0)); then
  say "installing ${missing[*]} from Debian"
  export DEBIAN_FRONTEND=noninteractive
  # Another apt run on the machine holds the lock for a while: wait for it.
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

say "building $VERSION from the npm registry (a few minutes, once)"
started=$SECONDS
work="$DIR.tmp.$$"
rm -rf "$work"
mkdir -p "$work"
cp "$SPEC/package.json" "$SPEC/package-lock.json" "$work/"
if ! (cd "$work" && CKJS_LINKING=dynamic npm_config_build_from_source=true \
  npm ci --no-audit --no-fund --loglevel=error >"$work/build.log" 2>&1); then
  tail -40 "$work/build.log" >&2
  die "the build failed; the full log is $work/build.log"
fi
lock_sum >"$work/.built-from"
rm -rf "$DIR"
mv "$work" "$DIR"
ready || die "built, but $MODULE does not load"
link
say "built $VERSION (librdkafka $(describe)) in $((SECONDS - started)) s"
