package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

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
