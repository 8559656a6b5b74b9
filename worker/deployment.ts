import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';

/** A worker's version: a build of a worker deployment (docs/decisions/workflow-versioning.md). */
export interface WorkerVersion {
  deploymentName: string;
  buildId: string;
}

/** The build id of a workflow bundle: its digest, so that workers of the same workflow code are one version. */
export function workflowCodeBuildId(code: string): string {
  return crypto.createHash('sha256').update(code).digest('hex').slice(0, 16);
}

/** What becomeCurrent found or did. */
export type Promotion = 'made-current' | 'already-current' | 'superseded';

interface PromoteOptions {
  namespace: string;
  version: WorkerVersion;
  identity: string;
  /** How long to wait for the version to be registered (its first poll) and made current. */
  timeoutMs: number;
  log: (msg: string) => void;
}

/** gRPC status codes the deployment calls answer while the version is not registered yet, or the deployment changed under the call. */
const RETRYABLE = new Set([5 /* NOT_FOUND */, 9 /* FAILED_PRECONDITION */, 10 /* ABORTED */, 14 /* UNAVAILABLE */]);

/**
 * Makes this worker's version the deployment's current version, once the server knows it
 * (it registers a version at its workers' first poll): new runs then start on it, and the
 * pinned runs of the version before finish on that one. A version that was current (or
 * ramping) before and has since been replaced is left as it is: an old worker restarted in
 * the middle of a deploy must not take the deployment back. A rollback is an operator's
 * `temporal worker deployment set-current-version`.
 */
export async function becomeCurrent(client: Pick<Client, 'workflowService'>, opts: PromoteOptions): Promise<Promotion> {
  const { namespace, version } = opts;
  const deadline = Date.now() + opts.timeoutMs;
  let lastError = 'the version is not registered yet';
  for (;;) {
    try {
      const { workerDeploymentInfo: info, conflictToken } = await client.workflowService.describeWorkerDeployment({
        namespace,
        deploymentName: version.deploymentName,
      });
      if (info?.routingConfig?.currentDeploymentVersion?.buildId === version.buildId) return 'already-current';
      const mine = info?.versionSummaries?.find((v) => v.deploymentVersion?.buildId === version.buildId);
      if (mine?.firstActivationTime) {
        const current = info?.routingConfig?.currentDeploymentVersion?.buildId ?? 'none';
        opts.log(`worker version ${version.buildId} was current before and ${current} is now: it serves its pinned runs only`);
        return 'superseded';
      }
      if (mine) {
        await client.workflowService.setWorkerDeploymentCurrentVersion({
          namespace,
          deploymentName: version.deploymentName,
          buildId: version.buildId,
          conflictToken,
          identity: opts.identity,
        });
        return 'made-current';
      }
    } catch (err) {
      if (!RETRYABLE.has((err as { code?: number }).code ?? -1)) throw err;
      lastError = (err as Error).message;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `worker version ${version.deploymentName}/${version.buildId} could not be made current within ${Math.round(opts.timeoutMs / 1000)} s: ${lastError}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
