import { temporal } from '@temporalio/proto';
import { adminClient, newPartner } from '../support/clients';
import { untilParked } from '../support/parked';
import { type TestStack, useStack } from '../support/stack';
import { payLeftOpen } from '../support/unanswered';
import { waitFor } from '../support/wait';

/**
 * Worker Deployment Versioning: the worker is a version of the engine's deployment and makes
 * itself current; a payment stays on the version that started it while a new release takes
 * the new payments, and an old worker restarted mid-deploy does not take the deployment back.
 */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

const deployment = async () => {
  const { workerDeploymentInfo } = await stack.client.workflowService.describeWorkerDeployment({
    namespace: stack.client.options.namespace,
    deploymentName: stack.workerVersion()!.deploymentName,
  });
  return workerDeploymentInfo!;
};
const currentBuild = async () => (await deployment()).routingConfig?.currentDeploymentVersion?.buildId;
const statusOf = async (buildId: string) => (await deployment()).versionSummaries?.find((v) => v.deploymentVersion?.buildId === buildId)?.status;

/** The version a workflow runs on and how it moves between versions. */
const { VERSIONING_BEHAVIOR_PINNED: PINNED } = temporal.api.enums.v1.VersioningBehavior;
const { WORKER_DEPLOYMENT_VERSION_STATUS_DRAINING: DRAINING } = temporal.api.enums.v1.WorkerDeploymentVersionStatus;

async function versionOf(workflowId: string) {
  const { raw } = await stack.client.workflow.getHandle(workflowId).describe();
  const info = raw.workflowExecutionInfo?.versioningInfo;
  return { buildId: info?.deploymentVersion?.buildId, behavior: info?.behavior };
}

describe('worker versions', () => {
  it('the worker is its deployment’s current version, named by its workflow code', async () => {
    const version = stack.workerVersion()!;
    expect(version.deploymentName).toBe('booking-engine');
    expect(version.buildId).toMatch(/^[0-9a-f]{16}$/);
    expect(await currentBuild()).toBe(version.buildId);
  });

  it('a payment under way finishes on the version that started it while a new release takes the new ones', async () => {
    const first = stack.workerVersion()!.buildId;
    const { api, creds } = await newPartner(stack);

    // A payment that parks for an operator, pinned to the first version.
    const parkedOrder = await api.productOrder();
    const parked = await payLeftOpen(stack, creds, { productOrderId: parkedOrder.id, scenario: 'supplier_down' });
    const inspected = await untilParked(stack, parkedOrder.id, { workflow: 'payment', boundMs: 60_000 });
    expect(await versionOf(parked.paymentId)).toEqual({ buildId: first, behavior: PINNED });
    // What an operator draining a version sees: the version the parked payment holds.
    expect(inspected.payment.worker_version).toEqual({ build_id: first, behavior: 'pinned' });

    // The next release rolls out next to it and becomes current; the first version drains.
    const release = await stack.startRelease('next-release');
    expect(await currentBuild()).toBe('next-release');
    await waitFor(
      async () => (await statusOf(first)) === DRAINING,
      () => `${first} draining`,
      10_000,
      200,
    );

    // A new payment runs on the release.
    const newOrder = await api.productOrder();
    const paid = await api.post('/api/partners/pay/', { product_order_id: newOrder.id, idempotency_key: `versioning-${newOrder.id}` });
    expect(paid.status).toBe(200);
    const paymentOfNew = (await adminClient(stack).get(`/admin/orders/${newOrder.id}`)).body.payment;
    expect(await versionOf(paymentOfNew.workflow_id)).toEqual({ buildId: 'next-release', behavior: PINNED });

    // The parked payment is decided and finishes on its own version, still running next door.
    const confirmed = await adminClient(stack).post(`/admin/orders/${parkedOrder.id}/confirm`, { reason: 'supplier portal shows it', supplier_ref: 'FUL-V1' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.order).toMatchObject({ status: 'completed', supplier_ref: 'FUL-V1' });
    const closed = await stack.client.workflow.getHandle(parked.paymentId).describe();
    expect(closed.status.name).toBe('COMPLETED');
    expect(await versionOf(parked.paymentId)).toMatchObject({ buildId: first });

    // The first version's worker restarts (a crash mid-deploy): it serves its own runs, and the release stays current.
    await stack.stopWorker({ crash: true });
    await stack.startWorker();
    expect(stack.workerVersion()!.buildId).toBe(first);
    expect(await currentBuild()).toBe('next-release');
    await release.stop();
  });
});
