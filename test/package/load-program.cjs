// Runs a Pulumi TypeScript program the way Pulumi's Node.js host does: TypeScript through the
// ts-node @pulumi/pulumi vendors (type-checking, with the program's tsconfig.json), in the
// program's directory, here under mocks. Prints the resource types it registered.
// Usage: node load-program.cjs <program dir>
const path = require('node:path');

const dir = path.resolve(process.argv[2]);
process.chdir(dir);
const pulumiDir = path.dirname(require.resolve('@pulumi/pulumi/package.json', { paths: [dir] }));
const { tsnodeRequire, typescriptRequire } = require(path.join(pulumiDir, 'tsutils.js')).typeScriptRequireStrings();
require(tsnodeRequire).register({ compiler: typescriptRequire, project: 'tsconfig.json', skipProject: false });
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
  'user-project',
  'dev',
);
const main = require(path.join(dir, 'index.ts'));
main().then(
  async (outputs) => {
    await pulumi.runtime.waitForRPCs();
    // Resolved as the program resolves it (this loader sits inside the package's own repository).
    const resolved = require('node:module').createRequire(path.join(dir, 'index.ts')).resolve('retry-topology/components');
    process.stdout.write(`${JSON.stringify({ types, consumer: outputs.consumer, resolved })}\n`);
  },
  (error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  },
);
