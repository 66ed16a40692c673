// pulumi-language-nodejs: a minimal Node.js language host for the Pulumi engine, built by
// retry-topology's scripts/pulumi-engine.sh.
//
// The upstream host (module github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3) is
// refused by the module proxy, so this one implements the LanguageRuntime gRPC service of sdk/v3
// and runs programs through `@pulumi/pulumi/cmd/run` from the program's own node_modules, with the
// flags and environment (PULUMI_CONFIG, PULUMI_CONFIG_SECRET_KEYS, PULUMI_NODEJS_TYPESCRIPT) that
// the SDK's run entry point reads. TypeScript programs run through the ts-node that
// @pulumi/pulumi ships, as with the upstream host. Not implemented: synchronous invokes (`--sync`
// pipes; the SDK then uses ordinary async invokes), policy packs, component-provider hosting, and
// program generation/packing (`pulumi convert`, `pulumi package gen-sdk`).
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
)

// version is set at build time (-ldflags "-X main.version=...").
var version = "dev"

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
