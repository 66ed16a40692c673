#!/usr/bin/env bash
# Builds the Pulumi engine that retry-topology's `pulumi up` needs, from Go modules only
# (this project's machines reach package registries, not download sites). The Go sources are in
# engine/ (one module per binary, see docs/contributing/pulumi-engine.md); this script stages
# them, builds and caches:
#
#   pulumi                    the CLI, github.com/pulumi/pulumi/pkg/v3          engine/cli
#   pulumi-language-nodejs    a Node.js language host of our own, on sdk/v3    engine/language-nodejs
#   pulumi-resource-rabbitmq  RabbitMQ provider for npm @pulumi/rabbitmq 3.3.8 engine/providers/rabbitmq
#   pulumi-resource-kafka     Kafka provider for npm @pulumi/kafka 3.13.2      engine/providers/kafka
#
# The binaries go to a cache directory outside the repository:
#   ${RETRY_TOPOLOGY_CACHE:-$HOME/.cache/retry-topology}/pulumi-<version>/bin
# Each is keyed on its own sources (bin/<name>.key: a hash of its module's files and the build
# settings): a binary is rebuilt only when its key changes, so editing the language host never
# rebuilds the providers. The last line on stdout is always `PULUMI_BIN=<dir>`: put <dir> on PATH.
#
# Usage: scripts/pulumi-engine.sh [--check] [--force] [--rebuild] [--lint]
#   --check    build nothing: print the path lines if an engine is ready (on PATH, or every binary
#              in the cache and up to date with engine/), else say what is missing or stale on
#              stderr and exit 3
#   --force    build even if a `pulumi` is already on PATH
#   --rebuild  rebuild the binaries even if they are up to date (implies --force)
#   --lint     build nothing: `gofmt -l` must print nothing for engine/, and `go vet` must pass
#              for every module (in staged copies; vet is skipped for sources that passed it
#              before with the same Go toolchain)
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ENGINE=$REPO/engine

PULUMI_VERSION=3.248.0
# The RabbitMQ provider's Terraform module is served under this path, but its go.mod names
# another: it is copied from the module cache into the build as ./upstream (see its go.mod).
TF_RABBITMQ_MODULE=github.com/cyrilgdn/terraform-provider-rabbitmq
TF_RABBITMQ_VERSION=v1.8.0
LDFLAGS="-s -w"

force=0
rebuild=0
check=0
lint=0
for arg in "$@"; do
  case "$arg" in
    --check) check=1 ;;
    --force) force=1 ;;
    --rebuild) force=1; rebuild=1 ;;
    --lint) lint=1 ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "pulumi-engine: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

log() { echo "pulumi-engine: $*" >&2; }
die() { log "error: $*"; exit 1; }
trap 'rc=$?; if [[ $rc -ne 0 && $check -eq 0 && $lint -eq 0 ]]; then log "failed (exit $rc); nothing broken was installed"; fi' EXIT

CACHE_DIR=${RETRY_TOPOLOGY_CACHE:-$HOME/.cache/retry-topology}
ROOT=$CACHE_DIR/pulumi-$PULUMI_VERSION
BIN=$ROOT/bin
SRC=$ROOT/src
BINARIES=(pulumi pulumi-language-nodejs pulumi-resource-rabbitmq pulumi-resource-kafka)

# module_dirs NAME: the engine/ directories a binary is built from.
module_dirs() {
  case "$1" in
    pulumi) echo cli ;;
    pulumi-language-nodejs) echo language-nodejs ;;
    pulumi-resource-rabbitmq) echo providers/rabbitmq providers/bridgemain ;;
    pulumi-resource-kafka) echo providers/kafka providers/bridgemain ;;
  esac
}

# source_key NAME: a hash of everything the binary is built from: its modules' files (names and
# contents) and the settings below. The Go toolchain and the module cache are not in it: the
# modules pin their dependencies.
source_key() {
  local name=$1 dir
  {
    echo "$name $PULUMI_VERSION $TF_RABBITMQ_MODULE@$TF_RABBITMQ_VERSION $LDFLAGS"
    for dir in $(module_dirs "$name"); do
      (cd "$ENGINE" && find "$dir" -type f ! -name schema.json ! -path '*/upstream/*' ! -path '*/out/*' | LC_ALL=C sort |
        while read -r file; do echo "== $file"; cat "$file"; done)
    done
  } | sha256sum | cut -d' ' -f1
}

# up_to_date NAME: built, and from the sources engine/ has now.
up_to_date() {
  [[ -x $BIN/$1 && -f $BIN/$1.key && "$(cat "$BIN/$1.key")" == "$(source_key "$1")" ]]
}

all_up_to_date() {
  local b
  for b in "${BINARIES[@]}"; do up_to_date "$b" || return 1; done
}

# stage NAME DIR: a fresh copy of engine/ under $DIR (builds never write into the repository);
# prints the staged engine directory.
stage() {
  local dir=$1
  rm -rf "${dir:?}"
  mkdir -p "$dir"
  cp -R "$ENGINE" "$dir/engine"
  echo "$dir/engine"
}

# Builds and vets run outside any workspace, with the modules' own go.mod files.
export GOWORK=off
export GOFLAGS="-mod=mod -buildvcs=false"
export CGO_ENABLED=0

# prepare_provider DIR NAME: what a provider module needs besides its files.
prepare_provider() {
  local dir=$1 name=$2 upstream
  echo '{}' > "$dir/schema.json"
  if [[ $name == pulumi-resource-rabbitmq ]]; then
    upstream=$(go mod download -json "$TF_RABBITMQ_MODULE@$TF_RABBITMQ_VERSION" |
      sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
    [[ -n $upstream && -d $upstream ]] || die "could not download $TF_RABBITMQ_MODULE@$TF_RABBITMQ_VERSION"
    cp -R "$upstream" "$dir/upstream"
    chmod -R u+w "$dir/upstream"
  fi
}

if [[ $lint -eq 1 ]]; then
  command -v go >/dev/null 2>&1 || die "the go command is needed for --lint"
  unformatted=$(cd "$ENGINE" && gofmt -l .)
  [[ -z $unformatted ]] || die "gofmt: these files are not formatted (run gofmt -w engine/): $unformatted"
  # go vet's verdict on the same sources with the same toolchain does not change: kept per key.
  lint_key=$( (go version; cd "$ENGINE" && find . -type f -name '*.go' -o -type f -name go.mod | LC_ALL=C sort | xargs cat) | sha256sum | cut -d' ' -f1)
  if [[ -f $ROOT/lint.key && "$(cat "$ROOT/lint.key")" == "$lint_key" ]]; then
    log "gofmt: clean; go vet: clean (these sources passed before)"
    exit 0
  fi
  started=$SECONDS
  staged=$(stage "$ROOT/lint")
  for name in "${BINARIES[@]}"; do
    for dir in $(module_dirs "$name"); do
      [[ $name == pulumi ]] && continue # no Go files of ours: the CLI is upstream's
      [[ -f $staged/$dir/.vetted ]] && continue
      case $dir in providers/rabbitmq | providers/kafka) prepare_provider "$staged/$dir" "$name" ;; esac
      (cd "$staged/$dir" && go mod tidy >&2 && go vet ./... >&2) || die "go vet failed in engine/$dir"
      touch "$staged/$dir/.vetted"
    done
  done
  mkdir -p "$ROOT"
  echo "$lint_key" > "$ROOT/lint.key"
  log "gofmt and go vet: clean ($((SECONDS - started))s)"
  exit 0
fi

if [[ $force -eq 0 ]] && existing=$(command -v pulumi 2>/dev/null); then
  echo "$existing"
  echo "PULUMI_BIN=$(dirname "$existing")"
  exit 0
fi

if [[ $rebuild -eq 0 ]] && all_up_to_date; then
  echo "PULUMI_BIN=$BIN"
  exit 0
fi

if [[ $check -eq 1 ]]; then
  missing=() stale=()
  for b in "${BINARIES[@]}"; do
    if [[ ! -x $BIN/$b ]]; then missing+=("$b"); elif ! up_to_date "$b"; then stale+=("$b"); fi
  done
  [[ ${#missing[@]} -eq 0 ]] || log "no engine: no pulumi on PATH, and $BIN lacks ${missing[*]}"
  [[ ${#stale[@]} -eq 0 ]] || log "no engine: no pulumi on PATH, and in $BIN ${stale[*]} predate engine/ (rebuild: scripts/pulumi-engine.sh)"
  exit 3
fi

command -v go >/dev/null 2>&1 || die "the go command is needed (apt-get install golang, or a Go >= 1.25 toolchain)"
mkdir -p "$BIN" "$SRC"

# One builder at a time per cache directory (parallel CI jobs share it).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$ROOT/.lock"
  if ! flock -n 9; then
    log "another build holds $ROOT/.lock: waiting for it"
    flock 9
  fi
  if [[ $rebuild -eq 0 ]] && all_up_to_date; then
    echo "PULUMI_BIN=$BIN"
    exit 0
  fi
fi

# build_one NAME FUNCTION: stages engine/ and runs FUNCTION in the binary's module directory,
# which must leave out/NAME there; installs it with its key. Skipped when up to date.
build_one() {
  local name=$1 fn=$2 start key dir staged rc
  key=$(source_key "$name")
  if [[ $rebuild -eq 0 ]] && up_to_date "$name"; then
    log "$name: up to date"
    return
  fi
  log "$name: building (this can take minutes)"
  start=$SECONDS
  staged=$(stage "$SRC/$name")
  dir=$staged/$(module_dirs "$name" | cut -d' ' -f1)
  mkdir -p "$dir/out"
  # errexit must stay on inside the subshell, so it is not run as a condition (`|| ...`).
  set +e
  (set -e; cd "$dir"; "$fn" "$name") >&2
  rc=$?
  set -e
  [[ $rc -eq 0 ]] || die "$name: build failed (exit $rc) in $dir; the go output above says why"
  install -m 0755 "$dir/out/$name" "$BIN/$name.tmp"
  mv -f "$BIN/$name.tmp" "$BIN/$name"
  echo "$key" > "$BIN/$name.key"
  rm -f "$dir/out/$name"
  log "$name: built in $((SECONDS - start))s ($(du -h "$BIN/$name" | cut -f1))"
}

build_cli() {
  go mod tidy
  go build -trimpath \
    -ldflags "$LDFLAGS -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PULUMI_VERSION" \
    -o "out/$1" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
}

build_language_nodejs() {
  go mod tidy
  go build -trimpath -ldflags "$LDFLAGS -X main.version=$PULUMI_VERSION" -o "out/$1" .
}

# The schema is generated by the provider binary itself (--gen-schema) and embedded in a second,
# incremental build.
build_provider() {
  prepare_provider . "$1"
  go mod tidy
  go build -trimpath -ldflags "$LDFLAGS" -o "out/$1" .
  "./out/$1" --gen-schema > schema.gen.json
  grep -q '"resources"' schema.gen.json || die "$1: schema generation produced no resources"
  mv schema.gen.json schema.json
  go build -trimpath -ldflags "$LDFLAGS" -o "out/$1" .
}

grep -q "github.com/pulumi/pulumi/pkg/v3 v$PULUMI_VERSION\$" "$ENGINE/cli/go.mod" ||
  die "engine/cli/go.mod does not require pkg/v3 v$PULUMI_VERSION (PULUMI_VERSION in this script)"
build_one pulumi-language-nodejs build_language_nodejs
build_one pulumi-resource-rabbitmq build_provider
build_one pulumi-resource-kafka build_provider
build_one pulumi build_cli

all_up_to_date || die "not every binary was built"
echo "PULUMI_BIN=$BIN"
