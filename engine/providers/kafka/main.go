// pulumi-resource-kafka: the Kafka provider for retry-topology's Pulumi engine build.
package main

import (
	_ "embed"

	"github.com/Mongey/terraform-provider-kafka/kafka"
	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfbridge"
	shimv2 "github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfshim/sdk-v2"

	"local/bridgemain"
)

const pkg = "kafka"

// version is the npm SDK's (@pulumi/kafka), which the engine checks the plugin against.
const version = "3.13.2"

//go:embed schema.json
var schema []byte

func providerInfo() tfbridge.ProviderInfo {
	res := func(name string) *tfbridge.ResourceInfo { return bridgemain.Resource(pkg, name) }
	ds := func(tok string) *tfbridge.DataSourceInfo { return bridgemain.DataSource(pkg, tok) }
	env := bridgemain.Env
	prov := tfbridge.ProviderInfo{
		P:       shimv2.NewProvider(kafka.Provider()),
		Name:    pkg,
		Version: version,
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
		},
	}
	prov.SetAutonaming(255, "-")
	return prov
}

func main() {
	bridgemain.Run(providerInfo(), schema)
}
