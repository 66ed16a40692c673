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
	"strconv"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/config"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// Exit code of @pulumi/pulumi/cmd/run meaning "the error was already shown to the user".
const exitAfterUserMessage = 32

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
