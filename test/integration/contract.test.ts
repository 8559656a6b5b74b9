import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { listen, type RunningServer } from '../../src/platform/listen';
import { adminClient, type PartnerCredentials } from '../support/clients';
import { type TestStack, useStack } from '../support/stack';

/**
 * The contract fuzzer (issue 12): Schemathesis, pinned in scripts/contract/requirements.txt,
 * against both OpenAPI documents of the running engine, with every check but
 * positive_data_acceptance (test/contract/schemathesis.toml says why), a fixed seed and a
 * bounded number of cases per operation. Any 5xx, response that breaks its schema,
 * undocumented status, content type or header, accepted invalid input, ignored key or wrong
 * 405 fails the test, listing Schemathesis's findings with a curl line each.
 *
 * The fuzzer's virtualenv is made by scripts/contract/schemathesis.sh when missing (PyPI,
 * ~15 s once). Reports: $CONTRACT_REPORT_DIR (default .tmp/contract-report/).
 */

const ROOT = path.resolve(__dirname, '../..');
const CONFIG = path.join(ROOT, 'test/contract/schemathesis.toml');
const REPORTS = process.env.CONTRACT_REPORT_DIR ?? path.join(ROOT, '.tmp/contract-report');
/** Cases per operation and phase; both documents together stay well under 5 minutes on two cores. */
const MAX_EXAMPLES = Number(process.env.CONTRACT_MAX_EXAMPLES ?? 50);

let stack: TestStack;
// A payment waits 5 s for its supplier before answering 202, so a fuzzed payment is quick.
useStack((s) => (stack = s), { payWaitMs: 5_000 });

interface Run {
  code: number | null;
  output: string;
  report: { failures: Array<{ code: string; title: string; operations: string[] }>; errors: unknown[]; test_cases?: { generated: number } } | null;
}

/** Runs `schemathesis run` without blocking this process's event loop: the engine under test answers from it. */
function schemathesis(bin: string, name: string, args: string[]): Promise<Run> {
  const dir = path.join(REPORTS, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const json = path.join(dir, 'report.json');
  const full = [
    '--config-file',
    CONFIG,
    'run',
    ...args,
    '--max-examples',
    String(MAX_EXAMPLES),
    // One worker: with two, CPython 3.11 failed once compiling in two threads at once ("AST constructor recursion depth mismatch").
    '--workers',
    '1',
    '--report',
    'junit,json',
    '--report-junit-path',
    path.join(dir, 'junit.xml'),
    '--report-json-path',
    json,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(bin, full, {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', COLUMNS: '120', SCHEMATHESIS_HOOKS: 'hooks', PYTHONPATH: path.join(ROOT, 'test/contract') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => {
      fs.writeFileSync(path.join(dir, 'output.txt'), output);
      const report = fs.existsSync(json) ? JSON.parse(fs.readFileSync(json, 'utf8')) : null;
      resolve({ code, output, report });
    });
  });
}

/** Schemathesis's FAILURES section (each finding with its request as curl), or its whole output. */
function findings(run: Run): string {
  const start = run.output.indexOf('FAILURES');
  if (start < 0) return run.output;
  const end = run.output.search(/=+ (WARNINGS|SUMMARY) =+/);
  return run.output.slice(start, end > start ? end : undefined);
}

function expectClean(run: Run, reportDir: string): void {
  const summary = (run.report?.failures ?? []).map((f) => `${f.code} ${f.title}: ${f.operations.join(', ')}`);
  if (run.code !== 0 || summary.length > 0 || (run.report?.errors.length ?? 0) > 0) {
    throw new Error(`Schemathesis found ${summary.length} problem(s) (exit ${run.code}; reports in ${reportDir}):\n${summary.join('\n')}\n\n${findings(run)}`);
  }
  // A run that generated nothing proves nothing.
  expect(run.report?.test_cases?.generated ?? 0).toBeGreaterThan(0);
}

describe('contract fuzzing (Schemathesis)', () => {
  let server: RunningServer;
  let bin: string;
  let creds: PartnerCredentials;

  beforeAll(async () => {
    const { stdout } = await promisify(execFile)('bash', [path.join(ROOT, 'scripts/contract/schemathesis.sh')], { cwd: ROOT, maxBuffer: 10 * 1024 * 1024 });
    bin = stdout.trim().split('\n').pop()!;
    // Credit enough for every order the fuzzer manages to pay.
    creds = await adminClient(stack).createPartner({ name: 'Contract Fuzzer', credit_limit: '0', topup: '100000000000' });
    server = await listen(stack.app.fetch, 0, '127.0.0.1');
  }, 180_000);

  afterAll(async () => {
    await server?.close();
  });

  it('Interface A (/api/openapi.json): no 5xx, schema violation, undocumented status or accepted invalid input', async () => {
    const run = await schemathesis(bin, 'partner-api', [
      `${server.url}/api/openapi.json`,
      '--header',
      `X-API-KEY: ${creds.api_key}`,
      '--header',
      `X-API-SECRET: ${creds.api_secret}`,
    ]);
    expectClean(run, path.join(REPORTS, 'partner-api'));
  }, 240_000);

  it('Interface B (/v1/openapi.json): the same', async () => {
    const run = await schemathesis(bin, 'agency-api', [`${server.url}/v1/openapi.json`, '--header', `Authorization: Bearer ${creds.agency_key}`]);
    expectClean(run, path.join(REPORTS, 'agency-api'));
  }, 240_000);
});
