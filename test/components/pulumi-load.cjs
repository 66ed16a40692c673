// Loads infra/ the way Pulumi's nodejs language host does (run.js): the project's tsconfig with
// the ts-node it finds (here the one vendored in @pulumi/pulumi, 7.0.1, type-checking) and the
// project's typescript. Then runs the exported program under mocks and prints what it created.
// Usage: node test/components/pulumi-load.cjs <project root>
const path = require('node:path');

const root = path.resolve(process.argv[2] ?? '.');
process.chdir(root);
const pulumiDir = path.dirname(require.resolve('@pulumi/pulumi/package.json', { paths: [root] }));
const { tsnodeRequire, typescriptRequire } = require(
  path.join(pulumiDir, 'tsutils.js'),
).typeScriptRequireStrings();
require(tsnodeRequire).register({
  compiler: typescriptRequire,
  project: 'tsconfig.json',
  skipProject: false,
  compilerOptions: {},
});

const pulumi = require(pulumiDir);
const types = [];
pulumi.runtime.setMocks(
  {
    newResource: (args) => {
      types.push(args.type);
      return { id: `${args.name}-id`, state: args.inputs };
    },
    call: (args) => args.inputs,
  },
  'retry-topology',
  'dev',
);
pulumi.runtime.setAllConfig(
  {
    'retry-topology:policies': JSON.stringify(['policies/billing.yaml']),
    'retry-topology:protectMessages': 'false',
    'rabbitmq:endpoint': 'http://127.0.0.1:15672',
    'rabbitmq:username': 'guest',
    'rabbitmq:password': 'guest',
    'kafka:bootstrapServers': JSON.stringify(['127.0.0.1:9092']),
    'kafka:tlsEnabled': 'false',
  },
  ['rabbitmq:password'],
);

const main = require(path.join(root, 'infra'));
if (typeof main !== 'function') throw new Error(`infra/ exports ${typeof main}, not a function`);
main().then(
  async (outputs) => {
    await pulumi.runtime.waitForRPCs();
    process.stdout.write(`${JSON.stringify({ types, policies: Object.keys(outputs.topologies) })}\n`);
  },
  (error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  },
);
