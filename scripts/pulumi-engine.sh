#!/usr/bin/env bash
# Builds the Pulumi engine that retry-topology's `pulumi up` needs, from Go modules only
# (this project's machines reach package registries, not download sites):
#
#   pulumi                    the CLI, github.com/pulumi/pulumi/pkg/v3 v3.248.0
#   pulumi-language-nodejs    a Node.js language host (small Go program below, on
#                             github.com/pulumi/pulumi/sdk/v3 v3.248.0)
#   pulumi-resource-rabbitmq  RabbitMQ provider 3.3.8 (for npm @pulumi/rabbitmq 3.3.8)
#   pulumi-resource-kafka     Kafka provider 3.13.2 (for npm @pulumi/kafka 3.13.2)
#
# The binaries go to a cache directory outside the repository:
#   ${RETRY_TOPOLOGY_CACHE:-$HOME/.cache/retry-topology}/pulumi-<version>/bin
# A binary that is already there is not rebuilt, so a second run does nothing.
# The last line on stdout is always `PULUMI_BIN=<dir>`: put <dir> on PATH.
# See docs/pulumi-engine.md for why each piece is built the way it is.
#
# Usage: scripts/pulumi-engine.sh [--check] [--force] [--rebuild]
#   --check    build nothing: print the path lines if an engine is ready (on PATH or complete in
#              the cache), else say what is missing on stderr and exit 3
#   --force    build even if a `pulumi` is already on PATH
#   --rebuild  rebuild the binaries even if they are already in the cache (implies --force)
set -euo pipefail

PULUMI_VERSION=3.248.0
RABBITMQ_VERSION=3.3.8
KAFKA_VERSION=3.13.2

# Modules the providers are built from. The upstream pulumi-rabbitmq / pulumi-kafka provider
# modules are not served by the module proxy, so the providers are bridged here directly from
# the Terraform providers with the (served) Pulumi Terraform bridge.
BRIDGE_VERSION=v3.120.0
TFSDK_FORK_VERSION=v2.0.0-20250923233607-7f1981c8674a # what the bridge's go.mod replaces terraform-plugin-sdk/v2 with
TF_RABBITMQ_MODULE=github.com/cyrilgdn/terraform-provider-rabbitmq
TF_RABBITMQ_VERSION=v1.8.0
TF_KAFKA_MODULE=github.com/Mongey/terraform-provider-kafka
TF_KAFKA_VERSION=v0.13.1

force=0
rebuild=0
check=0
for arg in "$@"; do
  case "$arg" in
    --check) check=1 ;;
    --force) force=1 ;;
    --rebuild) force=1; rebuild=1 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "pulumi-engine: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

log() { echo "pulumi-engine: $*" >&2; }
die() { log "error: $*"; exit 1; }
trap 'rc=$?; if [[ $rc -ne 0 && $check -eq 0 ]]; then log "failed (exit $rc); nothing broken was installed"; fi' EXIT

if [[ $force -eq 0 ]] && existing=$(command -v pulumi 2>/dev/null); then
  echo "$existing"
  echo "PULUMI_BIN=$(dirname "$existing")"
  exit 0
fi

CACHE_DIR=${RETRY_TOPOLOGY_CACHE:-$HOME/.cache/retry-topology}
ROOT=$CACHE_DIR/pulumi-$PULUMI_VERSION
BIN=$ROOT/bin
SRC=$ROOT/src
BINARIES=(pulumi pulumi-language-nodejs pulumi-resource-rabbitmq pulumi-resource-kafka)

all_built() {
  local b
  for b in "${BINARIES[@]}"; do [[ -x $BIN/$b ]] || return 1; done
}

if [[ $rebuild -eq 0 ]] && all_built; then
  echo "PULUMI_BIN=$BIN"
  exit 0
fi

if [[ $check -eq 1 ]]; then
  missing=()
  for b in "${BINARIES[@]}"; do [[ -x $BIN/$b ]] || missing+=("$b"); done
  log "no engine: no pulumi on PATH, and $BIN lacks ${missing[*]}"
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
  if [[ $rebuild -eq 0 ]] && all_built; then
    echo "PULUMI_BIN=$BIN"
    exit 0
  fi
fi

# Builds happen in wrapper modules under $SRC, never inside a workspace or the repository.
export GOWORK=off
export GOFLAGS="-mod=mod -buildvcs=false"
export CGO_ENABLED=0
LDFLAGS="-s -w"

# build_one NAME FUNCTION: runs FUNCTION (which must leave $SRC/NAME/out/NAME) unless NAME is built.
build_one() {
  local name=$1 fn=$2 start
  if [[ $rebuild -eq 0 && -x $BIN/$name ]]; then
    log "$name: already built"
    return
  fi
  log "$name: building (this can take minutes)"
  start=$SECONDS
  rm -rf "${SRC:?}/$name"
  mkdir -p "$SRC/$name/out"
  # errexit must stay on inside the subshell, so it is not run as a condition (`|| ...`).
  local rc
  set +e
  (set -e; cd "$SRC/$name"; "$fn") >&2
  rc=$?
  set -e
  [[ $rc -eq 0 ]] || die "$name: build failed (exit $rc) in $SRC/$name; the go output above says why"
  install -m 0755 "$SRC/$name/out/$name" "$BIN/$name.tmp"
  mv -f "$BIN/$name.tmp" "$BIN/$name"
  rm -f "$SRC/$name/out/$name"
  log "$name: built in $((SECONDS - start))s ($(du -h "$BIN/$name" | cut -f1))"
}

# --- pulumi (CLI) -----------------------------------------------------------------------------
# pkg/v3 has `replace sdk/v3 => ../sdk`, so `go install pkg@version` refuses it. The wrapper
# requires the sdk at the same version instead, and repeats pkg's other replace (clipboard).
build_cli() {
  cat > go.mod <<EOF
module local/pulumi-cli

go 1.25.11

require (
	github.com/pulumi/pulumi/pkg/v3 v$PULUMI_VERSION
	github.com/pulumi/pulumi/sdk/v3 v$PULUMI_VERSION
)

replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e
EOF
  go get "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi@v$PULUMI_VERSION"
  go build -trimpath \
    -ldflags "$LDFLAGS -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PULUMI_VERSION" \
    -o out/pulumi github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
}

# --- pulumi-language-nodejs ---------------------------------------------------------------------
# The upstream host (module github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3) is
# refused by the module proxy (403 for its version list, for v3.248.0 and for any branch query), so
# here is a small host of our own. It implements the LanguageRuntime gRPC service of sdk/v3 and runs
# programs through `@pulumi/pulumi/cmd/run` from the program's own node_modules, passing the same
# flags and environment (PULUMI_CONFIG, PULUMI_CONFIG_SECRET_KEYS, PULUMI_NODEJS_TYPESCRIPT) that
# the SDK's run entry point reads. TypeScript programs run through the ts-node that @pulumi/pulumi
# ships, as with the upstream host. Not implemented: synchronous invokes (`--sync` pipes; the SDK
# then uses ordinary async invokes), policy packs, component-provider hosting, and program
# generation/packing (`pulumi convert`, `pulumi package gen-sdk`).
build_language_nodejs() {
  cat > go.mod <<EOF
module local/pulumi-language-nodejs

go 1.25.11

require github.com/pulumi/pulumi/sdk/v3 v$PULUMI_VERSION
EOF
  write_language_nodejs_main > main.go
  go mod tidy
  go build -trimpath -ldflags "$LDFLAGS -X main.version=$PULUMI_VERSION" -o out/pulumi-language-nodejs .
}

write_language_nodejs_main() {
  cat <<'EOF'
// pulumi-language-nodejs: a minimal Node.js language host for the Pulumi engine, generated by
// retry-topology's scripts/pulumi-engine.sh.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/config"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

var version = "dev"

// Exit code of @pulumi/pulumi/cmd/run meaning "the error was already shown to the user".
const exitAfterUserMessage = 32

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	mu            sync.Mutex
	engineAddress string
}

func (h *host) Handshake(ctx context.Context, req *pulumirpc.LanguageHandshakeRequest) (*pulumirpc.LanguageHandshakeResponse, error) {
	h.mu.Lock()
	h.engineAddress = req.EngineAddress
	h.mu.Unlock()
	watchEngine(req.EngineAddress)
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

var watchOnce sync.Once

// watchEngine ends this process once the engine stops answering, so no host outlives its engine.
func watchEngine(addr string) {
	if addr == "" {
		return
	}
	watchOnce.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		if err := rpcutil.Healthcheck(ctx, addr, 5*time.Minute, cancel); err != nil {
			return
		}
		go func() { <-ctx.Done(); os.Exit(0) }()
	})
}

type options struct {
	typescript bool
	tsconfig   string
	nodeargs   []string
	pkgManager string
}

// parseOptions reads the `runtime.options` of Pulumi.yaml that this host understands.
func parseOptions(info *pulumirpc.ProgramInfo) options {
	o := options{typescript: true, pkgManager: "npm"}
	if info == nil || info.Options == nil {
		return o
	}
	m := info.Options.AsMap()
	if v, ok := m["typescript"].(bool); ok {
		o.typescript = v
	}
	if v, ok := m["tsconfig"].(string); ok {
		o.tsconfig = v
	}
	if v, ok := m["nodeargs"].(string); ok {
		o.nodeargs = strings.Fields(v)
	}
	if v, ok := m["packagemanager"].(string); ok && v != "" {
		o.pkgManager = v
	}
	return o
}

type pkgJSON struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Pulumi  struct {
		Resource bool   `json:"resource"`
		Name     string `json:"name"`
		Version  string `json:"version"`
		Server   string `json:"server"`
	} `json:"pulumi"`
}

// nodeModulesDirs lists the node_modules directories from dir up to the filesystem root.
func nodeModulesDirs(dir string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		nm := filepath.Join(d, "node_modules")
		if st, err := os.Stat(nm); err == nil && st.IsDir() {
			out = append(out, nm)
		}
		if filepath.Dir(d) == d {
			return out
		}
	}
}

// scanPackages lists the Pulumi resource packages (package.json "pulumi": {"resource": true})
// installed where the program can load them.
func scanPackages(programDir string) []*pulumirpc.PackageDependency {
	found := map[string]*pulumirpc.PackageDependency{}
	visited := map[string]bool{}
	var walk func(nm string, depth int)
	visit := func(dir string, depth int) {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || visited[real] {
			return
		}
		visited[real] = true
		if b, err := os.ReadFile(filepath.Join(real, "package.json")); err == nil {
			var p pkgJSON
			if json.Unmarshal(b, &p) == nil && p.Pulumi.Resource {
				name := p.Pulumi.Name
				if name == "" && strings.HasPrefix(p.Name, "@pulumi/") {
					name = strings.TrimPrefix(p.Name, "@pulumi/")
				}
				ver := p.Pulumi.Version
				if ver == "" {
					ver = p.Version
				}
				if name != "" && ver != "" {
					if !strings.HasPrefix(ver, "v") {
						ver = "v" + ver
					}
					found[name+"@"+ver] = &pulumirpc.PackageDependency{
						Name: name, Kind: "resource", Version: ver, Server: p.Pulumi.Server,
					}
				}
			}
		}
		if depth < 8 {
			walk(filepath.Join(real, "node_modules"), depth+1)
		}
	}
	walk = func(nm string, depth int) {
		entries, err := os.ReadDir(nm)
		if err != nil {
			return
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			p := filepath.Join(nm, name)
			if strings.HasPrefix(name, "@") {
				scoped, err := os.ReadDir(p)
				if err != nil {
					continue
				}
				for _, s := range scoped {
					visit(filepath.Join(p, s.Name()), depth)
				}
				continue
			}
			visit(p, depth)
		}
	}
	for _, nm := range nodeModulesDirs(programDir) {
		walk(nm, 0)
	}
	keys := make([]string, 0, len(found))
	for k := range found {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*pulumirpc.PackageDependency, 0, len(keys))
	for _, k := range keys {
		out = append(out, found[k])
	}
	return out
}

func programDir(info *pulumirpc.ProgramInfo, fallback string) string {
	if info != nil && info.ProgramDirectory != "" {
		return info.ProgramDirectory
	}
	if fallback != "" {
		return fallback
	}
	wd, _ := os.Getwd()
	return wd
}

func (h *host) GetRequiredPackages(ctx context.Context, req *pulumirpc.GetRequiredPackagesRequest) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{Packages: scanPackages(programDir(req.Info, ""))}, nil
}

func (h *host) GetRequiredPlugins(ctx context.Context, req *pulumirpc.GetRequiredPluginsRequest) (*pulumirpc.GetRequiredPluginsResponse, error) {
	var plugins []*pulumirpc.PluginDependency
	for _, p := range scanPackages(programDir(req.Info, req.Pwd)) {
		plugins = append(plugins, &pulumirpc.PluginDependency{Name: p.Name, Kind: p.Kind, Version: p.Version, Server: p.Server})
	}
	return &pulumirpc.GetRequiredPluginsResponse{Plugins: plugins}, nil
}

// resolveRun finds @pulumi/pulumi/cmd/run the way Node resolves it from the program directory.
func resolveRun(nodeBin, dir string) (string, error) {
	if p := os.Getenv("PULUMI_LANGUAGE_NODEJS_RUN_PATH"); p != "" && filepath.IsAbs(p) {
		return p, nil
	}
	cmd := exec.Command(nodeBin, "-e",
		"process.stdout.write(require.resolve('@pulumi/pulumi/cmd/run', {paths: [process.argv[1]]}))", dir)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("could not find @pulumi/pulumi/cmd/run from %s (did `npm install` run?): %w", dir, err)
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		return &pulumirpc.RunResponse{Error: "could not find node on the $PATH: " + err.Error()}, nil
	}
	dir := programDir(req.Info, req.Pwd)
	runPath, err := resolveRun(nodeBin, dir)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	opts := parseOptions(req.Info)
	h.mu.Lock()
	engine := h.engineAddress
	h.mu.Unlock()

	args := append([]string{}, opts.nodeargs...)
	args = append(args, runPath)
	add := func(k, v string) {
		if v != "" {
			args = append(args, "--"+k, v)
		}
	}
	add("monitor", req.MonitorAddress)
	add("engine", engine)
	add("organization", req.Organization)
	add("project", req.Project)
	add("stack", req.Stack)
	add("pwd", dir)
	if req.DryRun {
		args = append(args, "--dry-run")
	}
	add("query-mode", strconv.FormatBool(req.QueryMode))
	add("parallel", strconv.Itoa(int(req.Parallel)))
	entry := "."
	if req.Info != nil && req.Info.EntryPoint != "" {
		entry = req.Info.EntryPoint
	} else if req.Program != "" {
		entry = req.Program
	}
	args = append(args, entry)
	args = append(args, req.Args...)

	// The SDK reads config keys in the "<namespace>:config:<name>" form.
	cfg := map[string]string{}
	for k, v := range req.Config {
		if pk, err := config.ParseKey(k); err == nil {
			cfg[pk.Namespace()+":config:"+pk.Name()] = v
		} else {
			cfg[k] = v
		}
	}
	cfgJSON, err := json.Marshal(cfg)
	if err != nil {
		return &pulumirpc.RunResponse{Error: "failed to serialize configuration: " + err.Error()}, nil
	}
	secretKeys := req.ConfigSecretKeys
	if secretKeys == nil {
		secretKeys = []string{}
	}
	secretJSON, err := json.Marshal(secretKeys)
	if err != nil {
		return &pulumirpc.RunResponse{Error: "failed to serialize configuration secret keys: " + err.Error()}, nil
	}

	env := append(os.Environ(), "PULUMI_CONFIG="+string(cfgJSON), "PULUMI_CONFIG_SECRET_KEYS="+string(secretJSON))
	if opts.typescript {
		env = append(env, "PULUMI_NODEJS_TYPESCRIPT=true")
	}
	if opts.tsconfig != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+opts.tsconfig)
	}

	cmd := exec.CommandContext(ctx, nodeBin, args...)
	cmd.Dir = dir
	cmd.Env = env
	// Node may switch inherited descriptors to non-blocking mode: copy through wrappers instead.
	cmd.Stdout = struct{ io.Writer }{os.Stdout}
	cmd.Stderr = struct{ io.Writer }{os.Stderr}
	if err := cmd.Run(); err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			if exitErr.ExitCode() == exitAfterUserMessage {
				return &pulumirpc.RunResponse{Bail: true}, nil
			}
			return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exitErr.ExitCode())}, nil
		}
		return &pulumirpc.RunResponse{Error: "Problem executing program (could not run node): " + err.Error()}, nil
	}
	return &pulumirpc.RunResponse{}, nil
}

func (h *host) GetPluginInfo(ctx context.Context, _ *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version}, nil
}

func (h *host) InstallDependencies(req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer) error {
	closer, stdout, stderr, err := rpcutil.MakeInstallDependenciesStreams(server, req.IsTerminal)
	if err != nil {
		return err
	}
	defer closer.Close()
	dir := programDir(req.Info, req.Directory)
	opts := parseOptions(req.Info)
	fmt.Fprintf(stdout, "Installing dependencies...\n\n")
	cmd := exec.Command(opts.pkgManager, "install")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s install failed: %w", opts.pkgManager, err)
	}
	fmt.Fprintf(stdout, "Finished installing dependencies\n\n")
	return closer.Close()
}

func (h *host) RuntimeOptionsPrompts(ctx context.Context, req *pulumirpc.RuntimeOptionsRequest) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}

func (h *host) About(ctx context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		return nil, err
	}
	out, err := exec.Command(nodeBin, "--version").Output()
	if err != nil {
		return nil, err
	}
	return &pulumirpc.AboutResponse{Executable: nodeBin, Version: strings.TrimSpace(string(out))}, nil
}

func main() {
	// The engine passes logging/tracing flags first and its own address as the last argument.
	var engine string
	for i := 1; i < len(os.Args); i++ {
		a := os.Args[i]
		switch {
		case a == "--version" || a == "-version":
			fmt.Println(version)
			return
		case a == "--tracing" || a == "-tracing" || a == "--root" || a == "-root":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			engine = a
		}
	}
	h := &host{engineAddress: engine}
	watchEngine(engine)
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, h)
			return nil
		},
		Options: rpcutil.OpenTracingServerInterceptorOptions(nil),
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "fatal: could not start language host RPC server: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "fatal: language host RPC server stopped: %v\n", err)
		os.Exit(1)
	}
}
EOF
}

# --- resource providers -----------------------------------------------------------------------
# Each provider is a wrapper module: the Terraform provider + pulumi-terraform-bridge, with the
# resource tokens and renames of the npm SDK it serves (checked: every resource's input names in
# the SDK match the generated schema). The schema is generated by the same binary
# (`--gen-schema`) and embedded in a second, incremental build. The version the provider reports
# is a constant in main.go, so no -X ldflag is needed.
write_provider_main() { # PKG VERSION UPSTREAM_IMPORT PROVIDER_INFO_BODY
  cat <<EOF
// pulumi-resource-$1: generated by retry-topology's scripts/pulumi-engine.sh.
package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"

	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfbridge"
	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfgen"
	shimv2 "github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfshim/sdk-v2"
	"github.com/pulumi/pulumi/sdk/v3/go/common/diag"
	"github.com/pulumi/pulumi/sdk/v3/go/common/diag/colors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"

	upstream "$3"
)

const pkg = "$1"
const version = "$2"

//go:embed schema.json
var schema []byte

func res(name string) *tfbridge.ResourceInfo {
	return &tfbridge.ResourceInfo{Tok: tfbridge.MakeResource(pkg, "index", name)}
}

func ds(tok string) *tfbridge.DataSourceInfo {
	return &tfbridge.DataSourceInfo{Tok: tokens.ModuleMember(pkg + ":" + tok)}
}

func env(value interface{}, vars ...string) *tfbridge.SchemaInfo {
	return &tfbridge.SchemaInfo{Default: &tfbridge.DefaultInfo{EnvVars: vars, Value: value}}
}

func providerInfo() tfbridge.ProviderInfo {
	prov := tfbridge.ProviderInfo{
		P:       shimv2.NewProvider(upstream.Provider()),
		Name:    pkg,
		Version: version,
$4
	}
	prov.SetAutonaming(255, "-")
	return prov
}

func main() {
	info := providerInfo()
	if len(os.Args) > 1 && os.Args[1] == "--gen-schema" {
		sink := diag.DefaultSink(os.Stderr, os.Stderr, diag.FormatOptions{Color: colors.Never})
		res, err := tfgen.GenerateSchemaWithOptions(tfgen.GenerateSchemaOptions{
			ProviderInfo: info, DiagnosticsSink: sink, XInMemoryDocs: true,
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		out, err := json.MarshalIndent(res.PackageSpec, "", "    ")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Stdout.Write(out)
		return
	}
	tfbridge.Main(pkg, version, info, schema)
}
EOF
}

# build_provider NAME: go.mod and main.go must exist; builds, generates the schema, rebuilds.
build_provider() {
  local name=$1
  echo '{}' > schema.json
  go mod tidy
  go build -trimpath -ldflags "$LDFLAGS" -o "out/$name" .
  "./out/$name" --gen-schema > schema.gen.json
  grep -q '"resources"' schema.gen.json || die "$name: schema generation produced no resources"
  mv schema.gen.json schema.json
  go build -trimpath -ldflags "$LDFLAGS" -o "out/$name" .
}

build_rabbitmq() {
  # The Terraform provider's go.mod declares `module github.com/terraform-providers/terraform-provider-rabbitmq`,
  # not the path it is served under, so it is used as a local directory.
  local dir
  dir=$(go mod download -json "$TF_RABBITMQ_MODULE@$TF_RABBITMQ_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [[ -n $dir && -d $dir ]] || die "could not download $TF_RABBITMQ_MODULE@$TF_RABBITMQ_VERSION"
  cp -r "$dir" upstream
  chmod -R u+w upstream
  local modpath
  modpath=$(sed -n 's/^module[[:space:]]*//p' upstream/go.mod | head -n1)
  cat > go.mod <<EOF
module local/pulumi-resource-rabbitmq

go 1.25.0

require (
	github.com/pulumi/pulumi-terraform-bridge/v3 $BRIDGE_VERSION
	$modpath $TF_RABBITMQ_VERSION
)

replace github.com/hashicorp/terraform-plugin-sdk/v2 => github.com/pulumi/terraform-plugin-sdk/v2 $TFSDK_FORK_VERSION

replace $modpath => ./upstream
EOF
  write_provider_main rabbitmq "$RABBITMQ_VERSION" "$modpath/rabbitmq" '
		Config: map[string]*tfbridge.SchemaInfo{
			"endpoint":    env(nil, "RABBITMQ_ENDPOINT"),
			"username":    env(nil, "RABBITMQ_USERNAME"),
			"password":    env(nil, "RABBITMQ_PASSWORD"),
			"insecure":    env(nil, "RABBITMQ_INSECURE"),
			"cacert_file": env(nil, "RABBITMQ_CACERT"),
		},
		Resources: map[string]*tfbridge.ResourceInfo{
			"rabbitmq_binding":             res("Binding"),
			"rabbitmq_exchange":            res("Exchange"),
			"rabbitmq_federation_upstream": res("FederationUpstream"),
			"rabbitmq_operator_policy":     res("OperatorPolicy"),
			"rabbitmq_permissions":         res("Permissions"),
			"rabbitmq_policy":              res("Policy"),
			"rabbitmq_queue":               res("Queue"),
			"rabbitmq_shovel":              res("Shovel"),
			"rabbitmq_topic_permissions":   res("TopicPermissions"),
			"rabbitmq_user":                res("User"),
			"rabbitmq_vhost":               res("VHost"),
		},
		DataSources: map[string]*tfbridge.DataSourceInfo{
			"rabbitmq_exchange": ds("index/getExchange:getExchange"),
			"rabbitmq_user":     ds("index/getUser:getUser"),
			"rabbitmq_vhost":    ds("index/getVHost:getVHost"),
		},' > main.go
  build_provider pulumi-resource-rabbitmq
}

build_kafka() {
  cat > go.mod <<EOF
module local/pulumi-resource-kafka

go 1.25.0

require (
	$TF_KAFKA_MODULE $TF_KAFKA_VERSION
	github.com/pulumi/pulumi-terraform-bridge/v3 $BRIDGE_VERSION
)

replace github.com/hashicorp/terraform-plugin-sdk/v2 => github.com/pulumi/terraform-plugin-sdk/v2 $TFSDK_FORK_VERSION
EOF
  write_provider_main kafka "$KAFKA_VERSION" "$TF_KAFKA_MODULE/kafka" '
		Config: map[string]*tfbridge.SchemaInfo{
			"sasl_mechanism":  env("plain", "KAFKA_SASL_MECHANISM"),
			"skip_tls_verify": env(false, "KAFKA_SKIP_VERIFY"),
			"tls_enabled":     env(true, "KAFKA_ENABLE_TLS"),
		},
		Resources: map[string]*tfbridge.ResourceInfo{
			"kafka_acl": {
				Tok: tfbridge.MakeResource(pkg, "index", "Acl"),
				Fields: map[string]*tfbridge.SchemaInfo{
					"resource_name": {Name: "aclResourceName"},
					"resource_type": {Name: "aclResourceType"},
				},
			},
			"kafka_quota":                 res("Quota"),
			"kafka_topic":                 res("Topic"),
			"kafka_user_scram_credential": res("UserScramCredential"),
		},
		DataSources: map[string]*tfbridge.DataSourceInfo{
			"kafka_topic":  ds("index:getTopic"),
			"kafka_topics": ds("index:getTopics"),
		},' > main.go
  build_provider pulumi-resource-kafka
}

build_one pulumi-language-nodejs build_language_nodejs
build_one pulumi-resource-rabbitmq build_rabbitmq
build_one pulumi-resource-kafka build_kafka
build_one pulumi build_cli

all_built || die "not every binary was built"
echo "PULUMI_BIN=$BIN"
