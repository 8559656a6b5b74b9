import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { temporal } from '@temporalio/proto';
import type { Browser } from 'puppeteer-core';
import { listen, type RunningServer } from '../../src/platform/listen';
import { resolveTemporalCli } from '../../src/temporal/cli';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server';
import { devCodecEndpoint } from '../../src/temporal/connection';
import { EncryptionCodec } from '../../src/temporal/payload-codec';
import { holdWorkflowId } from '../../workflows/hotel.types';
import { launchBrowser, SCREENSHOT_DIR } from '../support/browser';
import { call, newPartner } from '../support/clients';
import { contact, day } from '../support/fixtures';
import { freePort } from '../support/global-setup';
import { recordHistory } from '../support/histories';
import { ADMIN_TOKEN, type TestStack, useStack } from '../support/stack';
import { waitFor } from '../support/wait';

/**
 * Personal data stays out of Temporal's histories: a hotel booking's guest (name, national id)
 * and contact are in its workflows' inputs, and those are encrypted by the payload codec on
 * the client and the worker. What Temporal stores, and what `temporal workflow show` prints,
 * holds none of them in clear; the admin API's codec endpoint decodes them for an operator
 * with the admin token (the CLI's `--codec-endpoint`, and Temporal Web's codec endpoint in a
 * real browser), and for nobody else.
 *
 * This file runs its stack on a dev server of its own with its Web UI, started as `npm start`
 * starts it: `--ui-codec-endpoint` at the admin API's codec endpoint.
 */

let stack: TestStack;
let server: DevServer;
let admin: RunningServer;
let adminPort: number;
let cli: string;
let uiPort: number;
const sharedTemporal = process.env.TEST_TEMPORAL_ADDRESS;
/** The stack's settings, filled in once the UI's port is known (useStack reads them when it starts the stack). */
const stackEnv: Record<string, string> = {};
const suffix = Array.from(crypto.randomBytes(6), (b) => String.fromCharCode(97 + (b % 26))).join('');
const guest = { first_name: 'Golnar', last_name: `Zand${suffix}`, nationality: 'IR', national_id: '0012345679' };
const email = `guest.${suffix}@mail.example`;

beforeAll(async () => {
  cli = await resolveTemporalCli(process.env.TEMPORAL_CLI_PATH, () => undefined);
  adminPort = await freePort();
  uiPort = await freePort();
  server = await startDevServer({
    cli,
    port: await freePort(),
    uiPort,
    namespace: 'default',
    log: () => undefined,
    uiCodecEndpoint: devCodecEndpoint('127.0.0.1', adminPort),
  });
  process.env.TEST_TEMPORAL_ADDRESS = server.address;
  stackEnv.TEMPORAL_UI_ORIGIN = `http://127.0.0.1:${uiPort}`;
});
useStack((s) => (stack = s), { env: stackEnv });
beforeAll(async () => {
  admin = await listen(stack.admin.fetch, adminPort, '127.0.0.1');
});
afterAll(async () => {
  await admin?.close();
  await server?.stop();
  process.env.TEST_TEMPORAL_ADDRESS = sharedTemporal;
});

const rawEvents = async (workflowId: string) => {
  const { history } = await stack.client.workflowService.getWorkflowExecutionHistory({ namespace: stack.taskQueue, execution: { workflowId } });
  return history!.events!;
};
/** Every byte Temporal keeps of a workflow's history, as it keeps them. */
const historyBytes = async (workflowId: string) =>
  Buffer.concat((await rawEvents(workflowId)).map((e) => temporal.api.history.v1.HistoryEvent.encode(e).finish()));

/**
 * Prebooks a hotel, books the prebooking for the guest (the hold workflow that gives the
 * supplier the guests carries them in its input), and pays it; that workflow's id.
 */
async function bookAndPay(): Promise<{ holdId: string; orderId: number }> {
  const { client } = await newPartner(stack, '0', '100000000');
  const found = await client.POST('/hotel/search_hotels/', {
    body: { check_in: day(40), check_out: day(42), nationality_id: 'IR', rooms: [{ adult_count: 1 }], city_id: 1 },
  });
  const rate = found.data!.data.results.flatMap((h) => h.rates)[0]!;
  const pre = await client.POST('/hotel/prebook/', { body: { rate_key: rate.rate_key } });
  const bookingId = pre.data!.data.booking_id;
  const booked = await client.POST('/hotel/book/', { body: { booking_id: bookingId, guests: [[guest]], contact: { ...contact, email } } });
  expect(booked.response.status).toBe(200);
  const ordered = await client.POST('/hotel/order/', { body: { booking_id: bookingId } });
  const paid = await client.POST('/partners/pay/', { body: { order_id: ordered.data!.data.id } });
  expect(paid.data?.data).toMatchObject({ order_status: 'completed' });
  return { holdId: holdWorkflowId(bookingId, 'guests'), orderId: ordered.data!.data.id };
}

let booking: { holdId: string; orderId: number } | undefined;
const paidBooking = async () => (booking ??= await bookAndPay());

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
const decode = (body: unknown, headers: Record<string, string> = auth) => call(stack.admin, 'POST', '/admin/codec/decode', headers, body);
const asJson = (payloads: temporal.api.common.v1.IPayload[]) => ({
  payloads: payloads.map((p) => ({
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    data: Buffer.from(p.data ?? []).toString('base64'),
  })),
});

describe('personal data in Temporal', () => {
  it("keeps a hotel booking's guest, national id and e-mail out of its workflows' histories in clear", async () => {
    const { holdId } = await paidBooking();
    const bytes = await historyBytes(holdId);
    const started = (await rawEvents(holdId))[0]!.workflowExecutionStartedEventAttributes!;
    expect(Buffer.from(started.input!.payloads![0]!.metadata!.encoding!).toString()).toBe('binary/encrypted');
    expect(Buffer.from(started.input!.payloads![0]!.metadata!['encryption-key-id']!).toString()).toBe(stack.payloadCodec.keyId);
    for (const secret of [guest.last_name, guest.national_id, email]) expect(bytes.includes(secret)).toBe(false);
    // The same check over every workflow of the stack's namespace: the payment, its steps, the events' relay.
    for await (const w of stack.client.workflow.list()) {
      const all = await historyBytes(w.workflowId);
      expect({ workflow: w.workflowId, clear: [guest.last_name, guest.national_id, email].filter((s) => all.includes(s)) }).toEqual({
        workflow: w.workflowId,
        clear: [],
      });
    }
    await recordHistory(stack, holdId, 'hotel-hold-guests-encrypted');
  });

  it('`temporal workflow show` prints ciphertext, and the guest once given the codec endpoint and the admin token', async () => {
    const { holdId } = await paidBooking();
    const show = async (...extra: string[]) =>
      (
        await promisify(execFile)(cli, ['workflow', 'show', '-w', holdId, '-n', stack.taskQueue, '--address', server.address, '--output', 'json', ...extra], {
          maxBuffer: 16 * 1024 * 1024,
        })
      ).stdout;
    // The CLI prints each payload's data in base64: read them all.
    const payloadText = (json: string) =>
      [...json.matchAll(/"data":\s*"([A-Za-z0-9+/=]*)"/g)].map((m) => Buffer.from(m[1]!, 'base64').toString('utf8')).join('\n');
    const plain = await show();
    expect(plain).toContain(holdId);
    for (const secret of [guest.last_name, guest.national_id, email]) expect(`${plain}${payloadText(plain)}`).not.toContain(secret);
    const decoded = payloadText(await show('--codec-endpoint', `${admin.url}/admin/codec`, '--codec-auth', `Bearer ${ADMIN_TOKEN}`));
    expect(decoded).toContain(guest.last_name);
    expect(decoded).toContain(guest.national_id);
    expect(decoded).toContain(email);
    // Without the token the codec endpoint refuses, and the CLI shows no guest.
    await expect(show('--codec-endpoint', `${admin.url}/admin/codec`)).rejects.toThrow();
  });

  it('the codec endpoint decodes for the admin token only, and fails loudly on a key it does not hold', async () => {
    const { holdId } = await paidBooking();
    const input = (await rawEvents(holdId))[0]!.workflowExecutionStartedEventAttributes!.input!.payloads!;
    const ok = await decode(asJson(input));
    expect(ok.status).toBe(200);
    const clear = Buffer.from((ok.body as { payloads: { data: string }[] }).payloads[0]!.data, 'base64').toString();
    expect(JSON.parse(clear)).toMatchObject({ guests: [[expect.objectContaining({ last_name: guest.last_name, national_id: guest.national_id })]] });

    expect((await decode(asJson(input), {})).status).toBe(401);
    expect((await decode(asJson(input), { authorization: 'Bearer not-the-admin-token-at-all' })).status).toBe(401);
    expect((await call(stack.admin, 'POST', '/admin/codec/encode', {}, { payloads: [] })).status).toBe(401);

    const foreign = await new EncryptionCodec(crypto.randomBytes(32)).encode([{ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('{}') }]);
    const refused = await decode(asJson(foreign));
    expect(refused.status).toBe(400);
    expect((refused.body as { error: string }).error).toMatch(/encrypted under key [0-9a-f]{8}/);
    expect((await decode({ payloads: [{ data: 'not base64!' }] })).status).toBe(400);
    expect((await decode('[]')).status).toBe(400);

    // Encode, then decode: the round trip the UI makes when an operator sends a signal.
    const plain = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('{"x":1}').toString('base64') };
    const encoded = await call(stack.admin, 'POST', '/admin/codec/encode', auth, { payloads: [plain] });
    expect(encoded.status).toBe(200);
    expect((await decode(encoded.body)).body).toEqual({ payloads: [plain] });
  });
});

describe('Temporal Web', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser('the codec browser test');
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows the guest decoded through the codec endpoint, once the operator's browser holds the admin token", async () => {
    const { holdId } = await paidBooking();
    const page = await browser.newPage();
    const codecCalls: string[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/admin/codec/')) codecCalls.push(`${r.request().method()} ${r.status()}`);
    });
    page.on('requestfailed', (r) => codecCalls.push(`failed ${r.url()} ${r.failure()?.errorText}`));
    // The operator's one step (docs/operations.md): the token into the codec session form.
    await page.goto(`${admin.url}/codec/session`);
    await page.type('input[name=token]', ADMIN_TOKEN);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(await page.content()).toMatch(/now decodes payloads/);

    const ui = `http://127.0.0.1:${uiPort}`;
    await page.goto(ui);
    // Its codec settings: this endpoint, with cross-origin credentials (the cookie).
    await page.evaluate(
      `localStorage.setItem('endpoint', ${JSON.stringify(JSON.stringify(`${admin.url}/admin/codec`))});` +
        "localStorage.setItem('overrideRemoteCodecConfiguration', 'true'); localStorage.setItem('includeCredentials', 'true');",
    );
    const { runId } = await stack.client.workflow.getHandle(holdId).describe();
    await page.goto(`${ui}/namespaces/${stack.taskQueue}/workflows/${encodeURIComponent(holdId)}/${runId}/history`);
    try {
      await waitFor(
        async () => (await page.content()).includes(guest.last_name),
        () => `the guest decoded on the workflow page (codec calls: ${codecCalls.join('; ')})`,
        30_000,
        500,
      );
    } finally {
      await page.screenshot({ path: `${SCREENSHOT_DIR}/codec-workflow.png`, fullPage: true });
    }
  });
});
