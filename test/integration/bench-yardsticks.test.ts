import { temporal } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { workflowOutcomesHeard } from '../../src/platform/metrics';
import { ShutdownList } from '../../src/platform/shutdown-list';
import * as productionWorkflows from '../../workflows';
import { ENCRYPTED_ENCODING } from '../../src/temporal/payload-codec';
import { BARE_ANSWER, bareAuthenticated, createBareApp, floorDeployment, floorTaskQueue, runFloorWorker } from '../../scripts/bench/engine/yardsticks';
import { call, newPartner } from '../support/clients';
import { type TestStack, useStack } from '../support/stack';

/**
 * The benchmarks' yardsticks (scripts/bench/engine/yardsticks.ts), served by the benchmark
 * engine only (`npm run bench:engine`): the floor workflow a payment is measured against
 * (`bench:pay --floor`) runs as a payment does, on a worker of its own next to the engine's
 * and configured as it is, and the bare answer behind Interface A's stack (`bench:read`) pays
 * for everything an authenticated request pays for. The engine's own app and worker have
 * neither.
 */

let stack: TestStack;
useStack((s) => (stack = s));

const heardFromWorker = async () => (await workflowOutcomesHeard.get()).values.find((v) => v.labels.via === 'worker')?.value ?? 0;

describe('the floor workflow (bench:pay --floor)', () => {
  const floorShutdown = new ShutdownList();
  let connection: NativeConnection;
  beforeAll(async () => {
    connection = await NativeConnection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  });
  afterAll(async () => {
    await floorShutdown.stop((err) => {
      throw err;
    });
    await connection.close();
  });

  it('runs one local activity in one workflow task on its own worker, and is answered from the worker next door as a payment is', async () => {
    const namespace = stack.client.options.namespace;
    const taskQueue = floorTaskQueue(stack.taskQueue);
    const deploymentName = floorDeployment(stack.workerVersion()!.deploymentName);
    await runFloorWorker({ connection, namespace, taskQueue, outcomes: stack.outcomes!, deploymentName, client: stack.client }, floorShutdown);
    const floor = createBareApp({ temporal: stack.client, taskQueue, waitMs: 20_000, outcomes: stack.outcomes! });
    const before = await heardFromWorker();
    const res = await call(floor, 'POST', '/floor', {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, data: { ok: true, workflow_id: expect.stringMatching(/^bench-floor-/) } });
    expect(await heardFromWorker()).toBe(before + 1);

    // Answered by the worker before the server has written the run's end: its history once it has.
    const handle = stack.client.workflow.getHandle(res.body.data.workflow_id);
    await handle.result();
    const { events } = await handle.fetchHistory();
    expect(events![0]!.workflowExecutionStartedEventAttributes!.taskQueue!.name).toBe(taskQueue);
    expect(events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(1);
    expect(events!.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(1);
    expect(events!.some((e) => e.activityTaskScheduledEventAttributes)).toBe(false);
    const completed = events!.at(-1)!.workflowExecutionCompletedEventAttributes!;
    expect(completed).toBeTruthy();

    // On a worker configured as the engine's: its payloads encrypted with the engine's codec,
    // and the run pinned to the current version of the floor's worker deployment.
    expect(Buffer.from(completed.result!.payloads![0]!.metadata!.encoding!).toString()).toBe(ENCRYPTED_ENCODING);
    const { raw } = await handle.describe();
    const versioning = raw.workflowExecutionInfo!.versioningInfo!;
    expect(versioning.behavior).toBe(temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_PINNED);
    expect(versioning.deploymentVersion?.deploymentName).toBe(deploymentName);
  });

  it('is not served without the floor deps: the bare route alone', async () => {
    const bare = createBareApp();
    expect((await call(bare, 'POST', '/floor', {})).status).toBe(404);
    expect((await call(bare, 'GET', '/bare', {})).body).toEqual({ ok: true, data: BARE_ANSWER });
  });
});

describe('the bare answer behind Interface A (bench:read)', () => {
  it('authenticates, counts against the rate limit and carries the request id, as every answer of Interface A', async () => {
    const app = stack.replica();
    bareAuthenticated(app);
    const refused = await call(app, 'GET', '/api/bench/bare/', { 'x-api-key': 'nobody', 'x-api-secret': 'nothing' });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ ok: false, error: expect.any(String) });

    const { creds } = await newPartner(stack);
    const auth = { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret };
    const first = await call(app, 'GET', '/api/bench/bare/', auth);
    const second = await call(app, 'GET', '/api/bench/bare/', auth);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ ok: true, data: BARE_ANSWER });
    expect(first.headers.get('x-request-id')).toBeTruthy();
    const remaining = (r: typeof first) => Number(/r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1]);
    expect(remaining(second)).toBe(remaining(first) - 1);
  });
});

describe('the engine itself (npm start, npm run api, npm run worker)', () => {
  it('serves no yardstick on its public API', async () => {
    const { creds } = await newPartner(stack);
    const auth = { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret };
    const res = await call(stack.app, 'GET', '/api/bench/bare/', auth);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ ok: false, error: expect.any(String) });
  });

  it('registers no benchmark workflow on its worker, and cannot run a floor', async () => {
    expect(Object.keys(productionWorkflows).filter((name) => /bench|floor/i.test(name))).toEqual([]);
    // Started on the engine's own task queue, a floor finds no worker that knows it.
    const started = await stack.client.workflow.start('benchFloor', {
      workflowId: `bench-floor-on-engine-${Date.now()}`,
      taskQueue: stack.taskQueue,
      args: [],
    });
    const deadline = Date.now() + 15_000;
    let failure: string | undefined;
    while (!failure && Date.now() < deadline) {
      const { events } = await started.fetchHistory();
      failure = events!.find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes?.failure?.message ?? undefined;
      if (!failure) await new Promise((r) => setTimeout(r, 200));
    }
    await started.terminate('test done');
    expect(failure).toMatch(/benchFloor/);
  });
});
