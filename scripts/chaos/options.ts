/**
 * The chaos run's settings: a size preset (full ≈ 1,000 payments across 10 partners, ci ≈ four minutes)
 * overridden by flags or CHAOS_* variables. Every count and every wait is bounded here.
 */
import { parseArgs } from 'node:util';
import type { SandboxScenario } from '../../src/sandbox/scenarios';

export interface Sizes {
  partners: number;
  /** Partners whose top-up plus credit covers only part of their orders (402s expected). */
  tightPartners: number;
  /**
   * Sub-agencies of one more partner, their parent (0: none): the parent grants them credit
   * out of its own and marks their prices up; the last of two or more is kept short of credit.
   */
  subAgencies: number;
  /** Plain pays: one order, one key, one request (retried on 5xx/connection errors). */
  pays: number;
  /** Same-key storms: `stormSize` concurrent requests with one key on one order. */
  storms: number;
  stormSize: number;
  /** Different-key races: `raceKeys` concurrent requests with distinct keys on one order. */
  races: number;
  raceKeys: number;
  /** Pays per sandbox scenario (supplier_reject, supplier_flaky, supplier_lost_response, supplier_down). */
  scenarioPays: number;
  /** Requests in flight (a storm or a race counts one slot). */
  concurrency: number;
  workerKills: number;
  apiKills: number;
  historyKills: number;
  matchingKills: number;
  postgresRestarts: number;
  /** Whole run, seconds: the load stops starting jobs, the settle waits shorten to fit. */
  deadlineS: number;
  /** Wait for in-flight payments after the load, seconds. */
  settleS: number;
}

export const PRESETS: Record<'full' | 'ci', Sizes> = {
  full: {
    partners: 10,
    tightPartners: 3,
    subAgencies: 3,
    pays: 800,
    storms: 3,
    stormSize: 100,
    races: 20,
    raceKeys: 5,
    scenarioPays: 12,
    concurrency: 16,
    workerKills: 12,
    apiKills: 1,
    historyKills: 1,
    matchingKills: 1,
    postgresRestarts: 1,
    deadlineS: 1200,
    settleS: 240,
  },
  ci: {
    partners: 4,
    tightPartners: 1,
    subAgencies: 2,
    pays: 100,
    storms: 1,
    stormSize: 30,
    races: 4,
    raceKeys: 4,
    scenarioPays: 3,
    concurrency: 10,
    workerKills: 1,
    apiKills: 1,
    historyKills: 1,
    matchingKills: 1,
    postgresRestarts: 1,
    deadlineS: 240,
    settleS: 90,
  },
};

/** The sandbox scenarios the chaos run's payments ask for (src/sandbox/scenarios.ts). */
export const SCENARIOS = ['supplier_reject', 'supplier_flaky', 'supplier_lost_response', 'supplier_down'] as const satisfies readonly SandboxScenario[];
export type Scenario = (typeof SCENARIOS)[number];

export interface Options extends Sizes {
  size: 'full' | 'ci';
  target: 'cluster' | 'npm-start';
  clusterDir: string;
  apiUrls: string[];
  adminUrl?: string;
  adminToken?: string;
  databaseUrl?: string;
  temporalAddress?: string;
  faults: boolean;
  scenarios: boolean;
  pgSignal: NodeJS.Signals;
  /** A part killed must be up again (new pid) within this, seconds. */
  recoverS: number;
  /** One HTTP request, ms (above the engine's PAY_WAIT_MS, 25 s by default). */
  requestTimeoutMs: number;
  /** Attempts of one pay request on 5xx/connection errors/timeouts, same key, next replica. */
  payAttempts: number;
  seed: number;
  /** Where the run's partners, orders and answers are written (for --verify-only). */
  runFile?: string;
  verifyOnly?: string;
  /** Warnings (contract problems that move no money: 500s, a paying key refused) count as findings. */
  strict: boolean;
}

const num = (name: string, v: string | undefined): number | undefined => {
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name}: not a non-negative number: ${v}`);
  return n;
};

export const USAGE = `usage: npm run chaos -- [options]

target (default: the cluster's state file):
  --target cluster|npm-start   CHAOS_TARGET; cluster reads \${CLUSTER_DIR:-.cluster}/state.json
  --cluster-dir DIR            CLUSTER_DIR
  --api-url URL[,URL]          npm-start: API_URL (default http://127.0.0.1:$PORT, 8080)
  --admin-url URL              npm-start: ADMIN_URL (default http://127.0.0.1:$ADMIN_PORT, 8081)
  --admin-token TOKEN          npm-start: ADMIN_TOKEN (default DATA_DIR/admin-token)
  --database-url URL           npm-start on PostgreSQL: DATABASE_URL (SQL checks; none on PGlite)
  --temporal-address H:P       npm-start: TEMPORAL_ADDRESS (default 127.0.0.1:$TEMPORAL_DEV_PORT, 7233)
size (preset, then overrides):
  --size full|ci               CHAOS_SIZE (full: ~1,000 pays, 10 partners; ci: ~150 pays, < 4 min)
  --partners N --tight-partners N --sub-agencies N --pays N --storms N --storm-size N --races N --race-keys N
  --scenario-pays N            per scenario (supplier_reject, _flaky, _lost_response, _down)
  --concurrency N              jobs in flight (a storm or race is one job)
faults (cluster only):
  --no-faults                  inject nothing
  --worker-kills N --api-kills N --history-kills N --matching-kills N --postgres-restarts N
  --pg-signal SIGINT|SIGQUIT|SIGKILL   how PostgreSQL is stopped (default SIGINT, fast shutdown)
  --recover-timeout S          a killed part must be up again within S seconds (default 120)
bounds:
  --deadline S                 the whole run (CHAOS_DEADLINE_S)
  --settle-timeout S           waiting for in-flight payments after the load
  --request-timeout MS         one HTTP request (default 45000)
  --pay-attempts N             tries of one pay on 5xx/connection errors (default 8)
other:
  --no-scenarios               no X-Sandbox-Scenario pays
  --seed N                     shuffling and choices (default: time)
  --run-file PATH              where the run's record goes (default <cluster-dir>/chaos/<run>.json)
  --verify-only PATH           only the checks, for a run recorded in PATH
  --strict                     CHAOS_STRICT=1: warnings (500s, a paying key answered 400) fail the run too

Prints one JSON line on stdout; progress goes to stderr. Exit 0: no finding; 1: findings;
2: the run could not be carried out (bad options, target not ready).`;

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): Options {
  const { values } = parseArgs({
    args: argv,
    allowPositionals: false,
    options: {
      target: { type: 'string' },
      'cluster-dir': { type: 'string' },
      'api-url': { type: 'string' },
      'admin-url': { type: 'string' },
      'admin-token': { type: 'string' },
      'database-url': { type: 'string' },
      'temporal-address': { type: 'string' },
      size: { type: 'string' },
      partners: { type: 'string' },
      'tight-partners': { type: 'string' },
      'sub-agencies': { type: 'string' },
      pays: { type: 'string' },
      storms: { type: 'string' },
      'storm-size': { type: 'string' },
      races: { type: 'string' },
      'race-keys': { type: 'string' },
      'scenario-pays': { type: 'string' },
      concurrency: { type: 'string' },
      'no-faults': { type: 'boolean', default: false },
      'worker-kills': { type: 'string' },
      'api-kills': { type: 'string' },
      'history-kills': { type: 'string' },
      'matching-kills': { type: 'string' },
      'postgres-restarts': { type: 'string' },
      'pg-signal': { type: 'string' },
      'recover-timeout': { type: 'string' },
      deadline: { type: 'string' },
      'settle-timeout': { type: 'string' },
      'request-timeout': { type: 'string' },
      'pay-attempts': { type: 'string' },
      'no-scenarios': { type: 'boolean', default: false },
      seed: { type: 'string' },
      'run-file': { type: 'string' },
      'verify-only': { type: 'string' },
      strict: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const size = (values.size ?? env.CHAOS_SIZE ?? 'full') as 'full' | 'ci';
  if (!(size in PRESETS)) throw new Error(`--size: full or ci, not ${size}`);
  const target = (values.target ?? env.CHAOS_TARGET ?? 'cluster') as Options['target'];
  if (target !== 'cluster' && target !== 'npm-start') throw new Error(`--target: cluster or npm-start, not ${target}`);
  const preset = PRESETS[size];
  const pick = (flag: string, key: keyof Sizes, envName?: string) =>
    num(flag, values[flag as keyof typeof values] as string | undefined) ?? num(flag, envName ? env[envName] : undefined) ?? preset[key];
  const sizes: Sizes = {
    partners: pick('partners', 'partners'),
    tightPartners: pick('tight-partners', 'tightPartners'),
    subAgencies: pick('sub-agencies', 'subAgencies'),
    pays: pick('pays', 'pays'),
    storms: pick('storms', 'storms'),
    stormSize: pick('storm-size', 'stormSize'),
    races: pick('races', 'races'),
    raceKeys: pick('race-keys', 'raceKeys'),
    scenarioPays: pick('scenario-pays', 'scenarioPays'),
    concurrency: Math.max(1, pick('concurrency', 'concurrency', 'CHAOS_CONCURRENCY')),
    workerKills: pick('worker-kills', 'workerKills'),
    apiKills: pick('api-kills', 'apiKills'),
    historyKills: pick('history-kills', 'historyKills'),
    matchingKills: pick('matching-kills', 'matchingKills'),
    postgresRestarts: pick('postgres-restarts', 'postgresRestarts'),
    deadlineS: pick('deadline', 'deadlineS', 'CHAOS_DEADLINE_S'),
    settleS: pick('settle-timeout', 'settleS'),
  };
  if (sizes.partners < 1) throw new Error('--partners: at least 1');
  if (sizes.tightPartners > sizes.partners) throw new Error('--tight-partners: at most --partners');
  const pgSignal = (values['pg-signal'] ?? 'SIGINT') as NodeJS.Signals;
  if (!['SIGINT', 'SIGQUIT', 'SIGKILL', 'SIGTERM'].includes(pgSignal)) throw new Error('--pg-signal: SIGINT, SIGTERM, SIGQUIT or SIGKILL');
  const apiUrl = values['api-url'] ?? env.API_URL ?? `http://127.0.0.1:${env.PORT || '8080'}`;
  return {
    ...sizes,
    size,
    target,
    clusterDir: values['cluster-dir'] ?? env.CLUSTER_DIR ?? '.cluster',
    apiUrls: apiUrl
      .split(',')
      .map((u) => u.trim().replace(/\/$/, ''))
      .filter(Boolean),
    adminUrl: (values['admin-url'] ?? env.ADMIN_URL)?.replace(/\/$/, ''),
    adminToken: values['admin-token'] ?? env.ADMIN_TOKEN,
    databaseUrl: values['database-url'] ?? env.DATABASE_URL,
    temporalAddress: values['temporal-address'] ?? env.TEMPORAL_ADDRESS,
    faults: !values['no-faults'],
    scenarios: !values['no-scenarios'],
    pgSignal,
    recoverS: num('recover-timeout', values['recover-timeout']) ?? 120,
    requestTimeoutMs: num('request-timeout', values['request-timeout']) ?? 45_000,
    payAttempts: Math.max(1, num('pay-attempts', values['pay-attempts']) ?? 8),
    seed: num('seed', values.seed) ?? Date.now() % 1_000_000,
    runFile: values['run-file'],
    verifyOnly: values['verify-only'],
    strict: values.strict === true || env.CHAOS_STRICT === '1',
  };
}
