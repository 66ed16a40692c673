// pulumi-resource-rabbitmq: cyrilgdn/terraform-provider-rabbitmq bridged to Pulumi, with the
// tokens and input names of npm @pulumi/rabbitmq 3.3.8. The Terraform provider's go.mod declares
// the module github.com/terraform-providers/terraform-provider-rabbitmq, not the path it is
// served under, so scripts/pulumi-engine.sh copies it from the module cache into ./upstream.
module local/pulumi-resource-rabbitmq

go 1.25.0

require (
	github.com/pulumi/pulumi-terraform-bridge/v3 v3.120.0
	github.com/terraform-providers/terraform-provider-rabbitmq v1.8.0
	local/bridgemain v0.0.0
)

replace github.com/hashicorp/terraform-plugin-sdk/v2 => github.com/pulumi/terraform-plugin-sdk/v2 v2.0.0-20250923233607-7f1981c8674a

replace github.com/terraform-providers/terraform-provider-rabbitmq => ./upstream

replace local/bridgemain => ../bridgemain
