// Loads the program the way Pulumi's nodejs language host does (@pulumi/pulumi's cmd/run, checked
// with pulumi 3.248.0): the working directory is the program's directory (infra/, from
// Pulumi.yaml's main: infra/index.ts), tsconfig.json is looked up there, and TypeScript runs
// through the ts-node it finds (here the one vendored in @pulumi/pulumi, 7.0.1, type-checking).
// Then runs the exported program under mocks and prints what it created.
// Usage: node test/components/pulumi-load.cjs <project root>
const path = require('node:path');

const root = path.resolve(process.argv[2] ?? '.');
process.chdir(path.join(root, 'infra'));
const fs = require('node:fs');
if (!fs.existsSync('tsconfig.json'))
  throw new Error('no tsconfig.json in infra/: Pulumi would compile without the project settings');
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

const main = require(path.join(root, 'infra', 'index.ts'));
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
