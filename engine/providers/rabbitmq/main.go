// pulumi-resource-rabbitmq: the RabbitMQ provider for retry-topology's Pulumi engine build.
package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfbridge"
	shimv2 "github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfshim/sdk-v2"
	"github.com/terraform-providers/terraform-provider-rabbitmq/rabbitmq"

	"local/bridgemain"
)

const pkg = "rabbitmq"

// version is the npm SDK's (@pulumi/rabbitmq), which the engine checks the plugin against.
const version = "3.3.8"

//go:embed schema.json
var schema []byte

func providerInfo() tfbridge.ProviderInfo {
	res := func(name string) *tfbridge.ResourceInfo { return bridgemain.Resource(pkg, name) }
	ds := func(tok string) *tfbridge.DataSourceInfo { return bridgemain.DataSource(pkg, tok) }
	env := bridgemain.Env
	prov := tfbridge.ProviderInfo{
		P:       shimv2.NewProvider(rabbitmq.Provider()),
		Name:    pkg,
		Version: version,
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
		},
	}
	prov.SetAutonaming(255, "-")
	return prov
}

func main() {
	bridgemain.Run(providerInfo(), schema)
}
