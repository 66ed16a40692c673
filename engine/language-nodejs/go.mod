// A Node.js language host for the Pulumi engine (scripts/pulumi-engine.sh builds it).
module local/pulumi-language-nodejs

go 1.25.11

require github.com/pulumi/pulumi/sdk/v3 v3.248.0
