// The pulumi CLI, built from the upstream module at this version (scripts/pulumi-engine.sh).
// pkg/v3 replaces sdk/v3 with ../sdk in its own go.mod, which `go install pkg@version` refuses, so
// this module requires the sdk at the same version and repeats pkg's other replace (clipboard).
module local/pulumi-cli

go 1.25.11

tool github.com/pulumi/pulumi/pkg/v3/cmd/pulumi

require (
	github.com/pulumi/pulumi/pkg/v3 v3.248.0
	github.com/pulumi/pulumi/sdk/v3 v3.248.0
)

replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e
