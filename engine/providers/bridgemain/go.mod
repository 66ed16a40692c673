// What every provider binary of scripts/pulumi-engine.sh shares: schema generation and serving.
module local/bridgemain

go 1.25.0

require github.com/pulumi/pulumi-terraform-bridge/v3 v3.120.0

replace github.com/hashicorp/terraform-plugin-sdk/v2 => github.com/pulumi/terraform-plugin-sdk/v2 v2.0.0-20250923233607-7f1981c8674a
