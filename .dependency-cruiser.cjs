/**
 * The layers: imports only point down.
 *
 *   entry points   src/main.ts, src/api.ts, worker/main.ts, src/cli, scripts/
 *   assembly       src/runtime (the processes started, the worker with its neighbours, the wiring)
 *   interfaces     src/http (API), worker/ (Temporal worker side)
 *   steps          activities/
 *   business       src/domain
 *   parts          src/db, src/suppliers, src/temporal (client side), src/health (what is down, readiness)
 *   shared         src/platform (logging, the HTTP listener, request context, metrics),
 *                  src/sandbox (the sandbox scenarios: a contract the API and the simulator share)
 *
 * workflows/ is replayed code: it depends on itself and, for types only, on the engine below the domain;
 * the types it shares with the domain are its contracts (workflows/*.types.ts), which the domain imports.
 * The supplier simulator (src/suppliers/simulator) is a test double: only the sandbox wiring
 * and the entry points start it; nothing that serves a partner imports it.
 * `npm run deps` checks it; .ci/run runs it.
 */
const LAYERS = {
  http: '^src/http/',
  worker: '^worker/',
  activities: '^activities/',
  domain: '^src/domain/',
  db: '^src/db/',
  suppliers: '^src/suppliers/',
  temporal: '^src/temporal/',
  workflows: '^workflows/',
  entry: '^(src/(main|api)\\.ts|src/cli/|scripts/)',
  simulator: '^src/suppliers/simulator/',
  health: '^src/health/',
  runtime: '^src/runtime/',
};

/** `from` may not import `to` (code; type-only imports are checked by `typeOnlyToo`). */
const forbid = (name, from, to, comment, typeOnlyToo = true) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from },
  to: typeOnlyToo ? { path: to } : { path: to, dependencyTypesNot: ['type-only'] },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes two modules one, types included; break it by moving what both need into a contract module a layer down.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'simulator-only-in-the-sandbox-wiring',
      severity: 'error',
      comment:
        'The supplier simulator is a test double: the API, the domain, activities and workflows never import it (they read the ' +
        'sandbox contract, src/sandbox/scenarios.ts). Only the simulator itself, the sandbox wiring (src/suppliers/index.ts, ' +
        'src/runtime, the settings in src/config.ts) and the entry points (src/main.ts, src/api.ts, scripts/) may.',
      from: { pathNot: `${LAYERS.simulator}|^src/suppliers/index\\.ts$|^src/config\\.ts$|^src/runtime/|${LAYERS.entry}` },
      to: { path: LAYERS.simulator },
    },
    forbid(
      'consoles-are-clients-of-the-apis',
      '^src/console/',
      '^(src/(db|domain|temporal|suppliers|runtime|health)/|activities/|workflows/|worker/)',
      'The consoles are clients of the APIs (docs/decisions/consoles.md): they call Interface A and the admin API as a browser ' +
        'would, through the typed client, and never read the database or a domain function behind them.',
    ),
    forbid(
      'sandbox-contract-stands-alone',
      '^src/sandbox/',
      '^(src/(?!sandbox/)|activities/|workflows/|worker/|scripts/)',
      'The sandbox scenarios are a contract: it names the scenarios and what they do, and knows neither the API nor the simulator.',
    ),
    forbid(
      'workflows-only-types',
      LAYERS.workflows,
      '^(src|activities|worker|scripts)/',
      'Workflow code is replayed: from the engine it imports types only.',
      false,
    ),
    forbid(
      'nothing-imports-entry-points',
      '^(src/(?!main\\.ts|api\\.ts|cli/)|activities/|workflows/|worker/(?!main\\.ts))',
      LAYERS.entry,
      'Entry points are the top: nothing imports them.',
    ),
    forbid(
      'benchmarks-stay-out',
      '^(src|activities|workflows|worker)/',
      '^scripts/bench/',
      'The benchmarks (their engine, yardsticks and floor workflow) are no part of production: nothing the engine runs imports them.',
    ),
    forbid(
      'platform-at-the-bottom',
      '^src/platform/',
      '^(src/(?!platform/)|activities/|workflows/|worker/|scripts/)',
      'Shared concerns (logging, the listener, request context, metrics) depend on nothing of the engine.',
    ),
    forbid(
      'client-stands-alone',
      '^src/client/',
      '^(src/(?!client/)|activities/|workflows/|worker/|scripts/)',
      'The typed client speaks HTTP only: a partner can take src/client/ without the engine.',
    ),
    forbid(
      'examples-use-the-client-only',
      '^scripts/examples/',
      '^(src/(?!client/)|activities/|workflows/|worker/|scripts/(?!examples/))',
      "The examples are a partner's code: they know the typed client, nothing of the engine.",
    ),
    forbid(
      'domain-not-up',
      LAYERS.domain,
      `${LAYERS.http}|${LAYERS.worker}|${LAYERS.activities}`,
      'The domain does not know its callers (HTTP, the worker, activities).',
    ),
    forbid(
      'parts-not-up',
      `${LAYERS.db}|${LAYERS.suppliers}|${LAYERS.health}`,
      `${LAYERS.http}|${LAYERS.worker}|${LAYERS.activities}|${LAYERS.domain}`,
      'The database, the suppliers and the health model sit below the domain.',
    ),
    forbid(
      'temporal-client-not-up',
      LAYERS.temporal,
      `${LAYERS.http}|${LAYERS.worker}|${LAYERS.activities}|${LAYERS.domain}|${LAYERS.runtime}`,
      'The Temporal client side sits below the domain: what a workflow failure answers is handed to it by the caller ' +
        '(src/domain/errors.ts, workflowAnswer, given to awaitWorkflow).',
    ),
    forbid(
      'temporal-client-takes-its-settings',
      LAYERS.temporal,
      '^src/config\\.ts$',
      'The Temporal client side names the settings it reads in a narrow type of its own (TemporalSettings, TemporalTlsSettings); ' +
        'the configuration is passed in, never imported.',
    ),
    forbid(
      'worker-below-the-assembly',
      '^worker/(?!main\\.ts$)',
      LAYERS.runtime,
      'The engine is assembled in src/runtime (the processes, the worker with its neighbours, the wiring), which imports worker/; ' +
        'worker/ is handed what it needs and never reaches back up into the assembly.',
    ),
    forbid(
      'workflows-not-domain',
      LAYERS.workflows,
      LAYERS.domain,
      'The types a workflow shares with the domain are workflow contracts (workflows/*.types.ts), which the domain imports: ' +
        'a workflow imports nothing of the domain, types included.',
    ),
    forbid(
      'activities-not-up',
      LAYERS.activities,
      `${LAYERS.http}|${LAYERS.worker}`,
      'Activities are called by the worker; they do not reach back into it or into HTTP.',
    ),
    forbid('http-not-worker', LAYERS.http, `${LAYERS.worker}|${LAYERS.activities}`, 'The API side does not run workflow steps.'),
    {
      name: 'engine-uses-workflow-contracts-only',
      comment:
        'The engine starts, signals and reads workflows through their contracts (workflows/*.types.ts, search attributes, failure types, ' +
        "activity options, the request-id header, each type's versioning behaviour), never through a workflow body (types aside: a checked name has its function type).",
      severity: 'error',
      from: { path: '^(src|activities|worker)/' },
      to: {
        path: LAYERS.workflows,
        pathNot: '^workflows/([\\w-]+\\.types|search-attributes|failure-types|activity-options|request-id|versioning)\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|test|drizzle|\\.tmp|\\.data|\\.cluster)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
