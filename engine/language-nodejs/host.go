package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"
)

// host is the LanguageRuntime service: the engine's handshake, plugin and about queries, and
// dependency installation. Running a program is in run.go, finding packages in packages.go.
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
