#!/usr/bin/env bash
# Usage: scripts/rabbitmq4.sh start|stop|restart|status|build [VERSION...]
#        scripts/rabbitmq4.sh env VERSION      # prints the exports that point the tests at it
#
# RabbitMQ 4.0 and 4.3 for tests and CI, each a node of its own beside the host's 3.10.8
# (scripts/rabbitmq.sh, 5672/15672/25672). VERSION is 4.0 or 4.3; none means both, in parallel.
#
#   version  Debian suite  AMQP                      management                dist   node
#   4.0      trixie        amqp://127.0.0.1:5740     http://127.0.0.1:15740    25740  rabbitmq-4-0@localhost
#   4.3      sid           amqp://127.0.0.1:5743     http://127.0.0.1:15743    25743  rabbitmq-4-3@localhost
#
#   guest/guest, management plugin on. Files under ${RETRY_TOPOLOGY_CACHE:-~/.cache/retry-topology}:
#   rabbitmq-4.3/root/            the Debian tree the node runs in (its data: var/lib/rabbitmq/instances)
#   rabbitmq-4.3-sid.tar.zst      that tree as built, before first start; a cold machine builds it once
#   rabbitmq-4.3/VERSION          the rabbitmq-server package version in it
#
# Why a chroot: only Debian's own packages are reachable here, and the Erlang that trixie's 4.0.5
# and sid's 4.3.6 need is built against glibc >= 2.38, while this machine (bookworm) has 2.36.
# So each runs in a minimal Debian tree of its own suite, made from the same Debian mirror the
# machine's apt already uses:
#   debootstrap --variant=minbase SUITE DIR MIRROR        (about 40 s and 220 MB)
#   DIR/usr/sbin/policy-rc.d exiting 101                  (package scripts start no service)
#   chroot DIR apt-get install --no-install-recommends rabbitmq-server
# apt runs with Check-Valid-Until=false, because the mirror's sid Release file can carry a
# Valid-Until already past by this machine's clock. The node itself is started by
# scripts/lib/rabbitmq-node.sh, which copies /etc/hosts into the tree (or the Erlang distribution
# fails with "epmd_error localhost nxdomain") and gives it its own ports and node name. It shares
# the host's epmd. The chroot's `rabbitmq` user has its own uid, unrelated to the host's users.
#
# Idempotent and cached: a warm start only starts the node; with only the archive present it is
# unpacked (seconds); with nothing, debootstrap runs. `build` stops there. Delete the cache
# directory and archive to rebuild from scratch.
#
# Env: RABBITMQ4_MIRROR (default: the first Debian URI in the machine's apt sources),
#      RETRY_TOPOLOGY_CACHE, RABBITMQ_START_TIMEOUT, RABBITMQ_STOP_TIMEOUT.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/rabbitmq-node.sh
source "$here/lib/rabbitmq-node.sh"
export PATH="/usr/local/sbin:/usr/sbin:/sbin:$PATH"
export DEBIAN_FRONTEND=noninteractive

CACHE="${RETRY_TOPOLOGY_CACHE:-$HOME/.cache/retry-topology}"
ALL_VERSIONS=(4.0 4.3)

say() { echo "rabbitmq $version: $*"; }
die() {
  echo "rabbitmq $version: ERROR: $*" >&2
  exit 1
}

suite_of() {
  case "$1" in
    4.0) echo trixie ;;
    4.3) echo sid ;;
    *) return 1 ;;
  esac
}
# Ports: 57xx for AMQP, then management and distribution 10 000 and 20 000 above it.
amqp_port_of() { echo "57${1/./}"; }

mirror() {
  if [[ -n ${RABBITMQ4_MIRROR:-} ]]; then
    echo "$RABBITMQ4_MIRROR"
    return
  fi
  local uri
  uri=$(grep -hsE '^\s*URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)
  [[ -n $uri ]] || uri=$(grep -hsE '^\s*deb\s' /etc/apt/sources.list | awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

apt_install_host() { # apt_install_host PACKAGE: the host needs debootstrap and zstd once
  command -v "$1" >/dev/null 2>&1 && return 0
  [[ $(id -u) -eq 0 ]] || die "$1 is missing and we are not root to apt-get install it"
  local log
  log=$(mktemp)
  if ! apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=300 "$1" >"$log" 2>&1; then
    if ! { apt-get update -o DPkg::Lock::Timeout=300 >>"$log" 2>&1 &&
      apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=300 "$1" >>"$log" 2>&1; }; then
      tail -n 20 "$log" >&2
      rm -f "$log"
      die "apt-get install $1 failed"
    fi
  fi
  rm -f "$log"
}

in_root() { chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "${@:2}"; }

build_archive() { # build_archive ARCHIVE: debootstrap the suite, install rabbitmq-server, pack
  local archive=$1 suite tmp log t0=$SECONDS
  suite=$(suite_of "$version")
  apt_install_host debootstrap
  tmp="$CACHE/rabbitmq-$version.building"
  log="$CACHE/rabbitmq-$version.build.log"
  rm -rf "$tmp"
  say "building a Debian $suite tree with rabbitmq-server (log: $log)"
  debootstrap --variant=minbase "$suite" "$tmp" "$(mirror)" >"$log" 2>&1 ||
    { tail -n 20 "$log" >&2; die "debootstrap $suite failed"; }
  printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
  chmod 755 "$tmp/usr/sbin/policy-rc.d"
  in_root "$tmp" apt-get -o Acquire::Check-Valid-Until=false update >>"$log" 2>&1 ||
    { tail -n 20 "$log" >&2; die "apt-get update in the $suite tree failed"; }
  in_root "$tmp" apt-get install -y --no-install-recommends rabbitmq-server >>"$log" 2>&1 ||
    { tail -n 20 "$log" >&2; die "apt-get install rabbitmq-server in the $suite tree failed"; }
  in_root "$tmp" apt-get clean
  local package
  package=$(in_root "$tmp" dpkg-query -W -f '${Version}' rabbitmq-server)
  [[ $package == "$version".* ]] ||
    die "Debian $suite now ships rabbitmq-server $package, not $version.x: update scripts/rabbitmq4.sh"
  echo "$package" >"$tmp/VERSION.rabbitmq"
  tar -C "$tmp" --zstd -cf "$archive.partial" . || die "could not write $archive"
  mv "$archive.partial" "$archive"
  rm -rf "$tmp"
  say "built rabbitmq-server $package in $((SECONDS - t0))s ($(du -h "$archive" | cut -f1) archive)"
}

ensure_root() { # the tree this version runs in, unpacked and ready
  local dir="$CACHE/rabbitmq-$version" archive
  archive="$CACHE/rabbitmq-$version-$(suite_of "$version").tar.zst"
  [[ -f $dir/root/VERSION.rabbitmq ]] && return 0
  [[ $(id -u) -eq 0 ]] || die "building or unpacking the chroot needs root"
  mkdir -p "$CACHE"
  apt_install_host zstd
  [[ -f $archive ]] || build_archive "$archive"
  local t0=$SECONDS
  rm -rf "$dir/root.partial"
  mkdir -p "$dir/root.partial"
  tar -C "$dir/root.partial" --zstd -xf "$archive" || die "could not unpack $archive"
  mv "$dir/root.partial" "$dir/root"
  cp "$dir/root/VERSION.rabbitmq" "$dir/VERSION"
  say "unpacked $archive in $((SECONDS - t0))s"
}

locked_ensure_root() { # one builder per version, however many callers start it at once
  mkdir -p "$CACHE"
  (
    exec 9>"$CACHE/rabbitmq-$version.lock"
    flock 9
    ensure_root
  )
}

node() { # node ACTION: the version's node, from its tree
  local amqp
  amqp=$(amqp_port_of "$version")
  rabbitmq_node "$1" "rabbitmq-${version/./-}" "$amqp" "1$amqp" "2$amqp" "$CACHE/rabbitmq-$version/root"
}

one() { # one ACTION VERSION
  local version=$2
  suite_of "$version" >/dev/null || die "unknown version '$version' (expected one of: ${ALL_VERSIONS[*]})"
  case "$1" in
    build) locked_ensure_root ;;
    start) locked_ensure_root && node start ;;
    stop | status)
      if [[ ! -d $CACHE/rabbitmq-$version/root ]]; then
        echo "rabbitmq $version: not installed"
        [[ $1 == stop ]] && return 0 || return 3
      fi
      node "$1"
      ;;
    restart) one stop "$version" && one start "$version" ;;
  esac
}

each() { # each ACTION VERSION...: in parallel; fails if any fails
  local action=$1 rc=0 pids=() v
  shift
  for v in "$@"; do
    one "$action" "$v" &
    pids+=($!)
  done
  for v in "${pids[@]}"; do wait "$v" || rc=1; done
  return "$rc"
}

action=${1:-}
shift || true
versions=("$@")
[[ ${#versions[@]} -gt 0 ]] || versions=("${ALL_VERSIONS[@]}")
case "$action" in
  start | stop | restart | build) each "$action" "${versions[@]}" ;;
  status)
    rc=0
    for version in "${versions[@]}"; do one status "$version" || rc=$?; done
    exit "$rc"
    ;;
  env)
    version=${versions[0]}
    [[ ${#versions[@]} -eq 1 ]] && suite_of "$version" >/dev/null || die "env needs exactly one version"
    amqp=$(amqp_port_of "$version")
    echo "export RABBITMQ_INSTANCE=$version"
    echo "export RABBITMQ_URL=amqp://guest:guest@127.0.0.1:$amqp"
    echo "export RABBITMQ_MANAGEMENT_URL=http://127.0.0.1:1$amqp"
    ;;
  *)
    echo "usage: $0 start|stop|restart|status|build [${ALL_VERSIONS[*]}] | env VERSION" >&2
    exit 2
    ;;
esac
