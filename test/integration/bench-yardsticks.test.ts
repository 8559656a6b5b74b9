import { workflowOutcomesHeard } from '../../src/platform/metrics';
import { BARE_ANSWER, createBareApp } from '../../src/http/bare';
import { call, newPartner } from '../support/clients';
import { recordHistory } from '../support/histories';
import { type TestStack, useStack } from '../support/stack';

/**
 * The benchmarks' yardsticks (src/http/bare.ts), served only by an engine started with
 * BENCH_BARE_PORT: the floor workflow a payment is measured against (`bench:pay --floor`)
 * runs as a payment does, and the bare answer behind Interface A's stack (`bench:read`)
 * pays for everything an authenticated request pays for.
 */

let stack: TestStack;
useStack((s) => (stack = s), { eagerStart: true });

const heardFromWorker = async () => (await workflowOutcomesHeard.get()).values.find((v) => v.labels.via === 'worker')?.value ?? 0;

describe('the floor workflow (bench:pay --floor)', () => {
  it('runs one local activity in one workflow task, and is answered from the worker next door as a payment is', async () => {
    const floor = createBareApp({ temporal: stack.client, taskQueue: stack.taskQueue, waitMs: 20_000, eagerStart: true, outcomes: stack.outcomes! });
    const before = await heardFromWorker();
    const res = await call(floor, 'POST', '/floor', {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, data: { ok: true, workflow_id: expect.stringMatching(/^bench-floor-/) } });
    expect(await heardFromWorker()).toBe(before + 1);

    const { events } = await stack.client.workflow.getHandle(res.body.data.workflow_id).fetchHistory();
    expect(events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(1);
    expect(events!.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(1);
    expect(events!.some((e) => e.activityTaskScheduledEventAttributes)).toBe(false);
    expect(events!.at(-1)!.workflowExecutionCompletedEventAttributes).toBeTruthy();
    await recordHistory(stack, res.body.data.workflow_id, 'bench-floor');
  });

  it('is not served without the floor deps: the bare route alone', async () => {
    const bare = createBareApp();
    expect((await call(bare, 'POST', '/floor', {})).status).toBe(404);
    expect((await call(bare, 'GET', '/bare', {})).body).toEqual({ ok: true, data: BARE_ANSWER });
  });
});

describe('the bare answer behind Interface A (bench:read)', () => {
  it('is served only by an API started for benchmarks', async () => {
    const { creds } = await newPartner(stack);
    const auth = { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret };
    const res = await call(stack.app, 'GET', '/api/bench/bare/', auth);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ ok: false, error: expect.any(String) });
  });

  it('authenticates, counts against the rate limit and carries the request id, as every answer of Interface A', async () => {
    const app = stack.benchApp();
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
