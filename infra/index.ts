// Entry point of the Pulumi program (Pulumi.yaml: main: infra/). Pulumi awaits the function and
// publishes what it returns as stack outputs.
import { program } from './program';

export = () => program();
