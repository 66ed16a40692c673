import * as pulumi from '@pulumi/pulumi';

export const DELETE_GUARD_TYPE = 'retry-topology:index:DeleteGuard';

/**
 * A protected, empty component that depends on every other child of a target component, so that
 * it comes first whenever the engine deletes them together: `pulumi destroy`, or an update
 * whose program no longer has the target. The engine deletes in layers, dependents before what
 * they depend on, and stops at the first refusal; this guard is alone in the first layer and
 * protected, so a destroy stops before it has touched anything (checked with the 3.248.0 engine,
 * also with --skip-preview, --continue-on-error and the Automation API; --exclude-protected
 * keeps what a protected resource depends on, which is all of it). Without it, the exchanges,
 * bindings and retained levels that nothing depends on would go first.
 *
 * Always registered, protected like a lasting child (`protectMessages`): a guard that left the
 * program while protected could never be deleted, so turning protection off takes one
 * `pulumi up` that unprotects it.
 */
export class DeleteGuard extends pulumi.ComponentResource {
  constructor(
    name: string,
    guarded: readonly pulumi.Resource[],
    opts: { parent: pulumi.Resource; protect: boolean },
  ) {
    super(DELETE_GUARD_TYPE, name, {}, { ...opts, dependsOn: [...guarded] });
  }
}
