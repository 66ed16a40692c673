// pulumi-resource-kafka: Mongey/terraform-provider-kafka bridged to Pulumi, with the tokens and
// input names of npm @pulumi/kafka 3.13.2.
module local/pulumi-resource-kafka

go 1.25.0

require (
	github.com/Mongey/terraform-provider-kafka v0.13.1
	github.com/pulumi/pulumi-terraform-bridge/v3 v3.120.0
	local/bridgemain v0.0.0
)

replace github.com/hashicorp/terraform-plugin-sdk/v2 => github.com/pulumi/terraform-plugin-sdk/v2 v2.0.0-20250923233607-7f1981c8674a

replace local/bridgemain => ../bridgemain
