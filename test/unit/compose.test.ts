import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json';
import { parseDocument } from 'yaml';
import {
  TEMPORAL_ADMIN_TOOLS_IMAGE,
  TEMPORAL_ADMIN_TOOLS_TAG,
  TEMPORAL_SERVER_IMAGE,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_UI_IMAGE,
} from '../../scripts/cluster/versions';

/**
 * docker-compose.yml against the Compose Specification's JSON schema, and against the one
 * source of truth for Temporal: the versions in scripts/cluster/versions.ts and the
 * configuration in scripts/cluster/temporal/ that `npm run cluster` runs too.
 */

const ROOT = path.resolve(__dirname, '../..');
const CONFIG_DIR = path.join(ROOT, 'scripts/cluster/temporal/config');
const SETUP_SCRIPT = path.join(ROOT, 'scripts/cluster/temporal/setup.sh');
const TEMPORAL_ROLES = ['frontend', 'history', 'matching', 'worker'];

type Service = {
  image?: string;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  volumes?: Array<string | { type?: string; source?: string; target?: string; read_only?: boolean }>;
  ports?: unknown[];
  depends_on?: string[] | Record<string, { condition?: string }>; // short syntax or long
  deploy?: { replicas?: number };
  container_name?: string;
  healthcheck?: unknown;
};
type Compose = { services: Record<string, Service>; [key: string]: unknown };

/** Parses a compose file as Compose does: YAML 1.1 merge keys (`<<: *anchor`) resolved. */
function parseCompose(text: string): Compose {
  const doc = parseDocument(text, { merge: true });
  if (doc.errors.length > 0) throw new Error(doc.errors.map((e) => e.message).join('\n'));
  return doc.toJS({ maxAliasCount: 1000 }) as Compose;
}

/**
 * The Compose Specification's schema (compose-spec/compose-spec, schema/compose-spec.json,
 * JSON Schema draft-07) as the dclint package ships it, byte for byte. dclint's `exports`
 * hide the file, so it is found beside its package.json.
 */
function composeSchemaValidator(): ValidateFunction {
  const dir = path.dirname(require.resolve('dclint/package.json'));
  const schema = JSON.parse(fs.readFileSync(path.join(dir, 'schemas/compose.schema.json'), 'utf8')) as { $schema?: string };
  // Draft-07, the draft Ajv's default class implements; the schema names its meta-schema by an
  // https URL, while Ajv registers draft-07's under http: the same meta-schema under that name.
  expect(schema.$schema).toBe('https://json-schema.org/draft-07/schema');
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false });
  ajv.addMetaSchema({ ...draft07, $id: schema.$schema });
  return ajv.compile(schema);
}

/** Compose's escape for a literal `$` in a value. */
const unescape = (s: string) => s.replaceAll('$$', '$');

/** Resolves a service's bind mounts (long or short syntax) to absolute host paths. */
function bindMounts(service: Service): Array<{ source: string; target: string; readOnly: boolean }> {
  return (service.volumes ?? []).flatMap((v) => {
    if (typeof v === 'string') {
      const [source = '', target = '', mode = ''] = v.split(':');
      if (!source.startsWith('.') && !source.startsWith('/')) return []; // a named volume
      return [{ source: path.resolve(ROOT, source), target, readOnly: mode.split(',').includes('ro') }];
    }
    if (v.type !== 'bind' || !v.source || !v.target) return [];
    return [{ source: path.resolve(ROOT, v.source), target: v.target, readOnly: v.read_only === true }];
  });
}

const composeText = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
const compose = parseCompose(composeText);
const services = compose.services;
const byImage = (prefix: string) => Object.entries(services).filter(([, s]) => s.image?.startsWith(prefix));
/** The condition a service waits for on another (long depends_on syntax), if any. */
const condition = (service: Service | undefined, on: string): string | undefined =>
  Array.isArray(service?.depends_on) ? undefined : service?.depends_on?.[on]?.condition;

describe('docker-compose.yml', () => {
  describe('against the Compose Specification', () => {
    let validate: ValidateFunction;
    beforeAll(() => {
      validate = composeSchemaValidator();
    });

    it('is valid against the Compose Specification JSON schema', () => {
      const valid = validate(compose);
      expect(validate.errors ?? []).toEqual([]);
      expect(valid).toBe(true);
    });

    it('the schema check rejects what Compose would reject', () => {
      const broken = structuredClone(compose);
      (broken.services.api as Record<string, unknown>).replica = 2; // not a service attribute
      (broken.services.worker as Record<string, unknown>).restart = ['always']; // not a string
      expect(validate(broken)).toBe(false);
      const paths = (validate.errors ?? []).map((e) => e.instancePath);
      expect(paths).toEqual(expect.arrayContaining(['/services/api', '/services/worker/restart']));
    });
  });

  it('depends only on services it defines, without a cycle (what the schema cannot see)', () => {
    // Short syntax (a list of names) or long (a map of name to condition).
    const deps = (name: string): string[] => {
      const d = services[name]?.depends_on ?? [];
      return Array.isArray(d) ? d : Object.keys(d);
    };
    for (const name of Object.keys(services)) {
      expect({ name, undefined: deps(name).filter((d) => !(d in services)) }).toEqual({ name, undefined: [] });
    }
    const done = new Set<string>();
    const visit = (name: string, chain: string[]): void => {
      if (chain.includes(name)) throw new Error(`depends_on cycle: ${[...chain, name].join(' → ')}`);
      if (done.has(name)) return;
      for (const d of deps(name)) visit(d, [...chain, name]);
      done.add(name);
    };
    for (const name of Object.keys(services)) visit(name, []);
    expect(done.size).toBe(Object.keys(services).length);
  });

  it('uses no deprecated Temporal image', () => {
    expect(composeText).not.toMatch(/temporalio\/auto-setup/);
  });

  describe('the Temporal cluster', () => {
    const servers = byImage('temporalio/server:');

    it('is the four services, one container each, at the server version of scripts/cluster/versions.ts', () => {
      expect(servers.map(([name]) => name).sort()).toEqual(TEMPORAL_ROLES.map((r) => `temporal-${r}`));
      for (const [, s] of servers) {
        expect(s.image).toBe(TEMPORAL_SERVER_IMAGE);
        expect(s.deploy?.replicas ?? 1).toBe(1);
      }
      expect(servers.map(([, s]) => s.command).sort()).toEqual(TEMPORAL_ROLES.map((r) => [r]));
    });

    it.each(servers.map(([name]) => name))('%s runs temporal-server on the mounted scripts/cluster/temporal/config', (name) => {
      const s = services[name]!;
      const script = unescape((s.entrypoint ?? []).join('\n'));
      const run = /exec temporal-server --root \/ --config (\S+) --env cluster start --service "\$1"/.exec(script);
      expect(run).not.toBeNull();
      // `sh -c SCRIPT $0 $1...`: the service's command is the script's $1.
      expect(s.entrypoint?.slice(0, 2)).toEqual(['/bin/sh', '-c']);
      expect(s.entrypoint).toHaveLength(4);
      const configDir = run![1]!;
      const mount = bindMounts(s).find((m) => m.target === configDir);
      expect(mount).toEqual({ source: CONFIG_DIR, target: configDir, readOnly: true });
      expect(fs.existsSync(path.join(mount!.source, 'cluster.yaml'))).toBe(true);
      // Its own address for the others to reach it at; the frontend by its service name.
      expect(script).toMatch(/export TEMPORAL_BROADCAST_ADDRESS/);
      expect(s.environment).toMatchObject({ BIND_ON_IP: '0.0.0.0', FRONTEND_ADDRESS_HOST: 'temporal-frontend' });
      expect(s.environment?.DYNAMIC_CONFIG_FILE_PATH).toBe(`${configDir}/dynamicconfig.yaml`);
      expect(condition(s, 'temporal-schema')).toBe('service_completed_successfully');
    });

    it('sets only variables that cluster.yaml reads, and never the shard count (fixed by cluster.yaml for both runs)', () => {
      const template = fs.readFileSync(path.join(CONFIG_DIR, 'cluster.yaml'), 'utf8');
      expect(template.split('\n')[0]).toBe('# enable-template');
      const read = new Set([...template.matchAll(/env "([A-Z0-9_]+)"/g)].map((m) => m[1]));
      for (const [name, s] of servers) {
        const set = Object.keys(s.environment ?? {});
        expect({ name, unknown: set.filter((k) => !read.has(k)) }).toEqual({ name, unknown: [] });
        expect(set).not.toContain('NUM_HISTORY_SHARDS');
      }
    });
  });

  describe('the one-shot set-up', () => {
    const setups = byImage('temporalio/admin-tools:');
    const setupScript = fs.readFileSync(SETUP_SCRIPT, 'utf8');
    const readBySetup = new Set([...setupScript.matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1]));

    it('runs scripts/cluster/temporal/setup.sh on admin-tools of the same server release', () => {
      expect(TEMPORAL_ADMIN_TOOLS_TAG.startsWith(`${TEMPORAL_SERVER_VERSION}-`)).toBe(true);
      expect(setups.map(([name]) => name).sort()).toEqual(['temporal-namespace', 'temporal-schema']);
      for (const [name, s] of setups) {
        expect(s.image).toBe(TEMPORAL_ADMIN_TOOLS_IMAGE);
        const script = s.entrypoint?.[1];
        expect(s.entrypoint?.[0]).toBe('/bin/sh');
        expect(bindMounts(s)).toContainEqual({ source: SETUP_SCRIPT, target: script, readOnly: true });
        const unknown = Object.keys(s.environment ?? {}).filter((k) => !readBySetup.has(k));
        expect({ name, unknown }).toEqual({ name, unknown: [] });
      }
      expect(services['temporal-schema']?.command).toEqual(['schema']);
      expect(services['temporal-namespace']?.command).toEqual(['namespace']);
    });

    it('orders start-up: schema, then the frontend, then the other services and the namespace, then the engine', () => {
      expect(condition(services['temporal-schema'], 'postgres')).toBe('service_healthy');
      expect(condition(services['temporal-namespace'], 'temporal-frontend')).toBe('service_healthy');
      // The frontend first, alone: it writes the cluster metadata record the others then read.
      for (const name of ['temporal-history', 'temporal-matching', 'temporal-worker']) {
        expect({ name, frontend: condition(services[name], 'temporal-frontend') }).toEqual({ name, frontend: 'service_healthy' });
      }
      expect(condition(services['temporal-frontend'], 'temporal-schema')).toBe('service_completed_successfully');
      expect(services['temporal-frontend']?.healthcheck).toBeDefined();
      for (const name of ['api', 'worker']) {
        expect(condition(services[name], 'temporal-namespace')).toBe('service_completed_successfully');
        expect(services[name]?.environment?.TEMPORAL_ADDRESS).toBe('temporal-frontend:7233');
      }
      // The schema step and the servers agree on how to reach PostgreSQL.
      const db = (s: Service) => Object.fromEntries(['POSTGRES_SEEDS', 'DB_PORT', 'POSTGRES_USER', 'POSTGRES_PWD'].map((k) => [k, s.environment?.[k]]));
      for (const [, s] of byImage('temporalio/server:')) expect(db(s)).toEqual(db(services['temporal-schema']!));
    });
  });

  it('runs the Temporal UI of scripts/cluster/versions.ts against the frontend', () => {
    const ui = byImage('temporalio/ui:');
    expect(ui.map(([name]) => name)).toEqual(['temporal-ui']);
    expect(ui[0]![1].image).toBe(TEMPORAL_UI_IMAGE);
    expect(ui[0]![1].environment?.TEMPORAL_ADDRESS).toBe('temporal-frontend:7233');
  });

  it('lets api and worker scale: no host port, no container name, one proxy publishing the api', () => {
    for (const name of ['api', 'worker']) {
      expect({ name, ports: services[name]?.ports, container_name: services[name]?.container_name }).toEqual({
        name,
        ports: undefined,
        container_name: undefined,
      });
      expect(services[name]?.healthcheck).toBeDefined();
    }
    expect(services['api-proxy']?.ports).toEqual(['8080:8080', '127.0.0.1:8081:8081']);
    expect(services.api?.environment?.ADMIN_TOKEN).toBe('${ADMIN_TOKEN:?set ADMIN_TOKEN}');
    // Every replica signs webhooks with secrets sealed under one key, given to all of them.
    for (const name of ['api', 'worker']) expect(services[name]?.environment?.WEBHOOK_SECRETS_KEY).toBe('${WEBHOOK_SECRETS_KEY:?set WEBHOOK_SECRETS_KEY}');
  });
});

/**
 * The Dockerfile builds the compiled engine in one stage and runs it in another: production
 * runs JavaScript from dist/ (npm run build), without the TypeScript toolchain or tsx.
 */
describe('Dockerfile', () => {
  const text = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  // Instructions, comments dropped and continuation lines joined.
  const instructions = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages: string[][] = [];
  for (const line of instructions) {
    if (/^FROM /i.test(line)) stages.push([]);
    stages.at(-1)!.push(line);
  }
  const [build, runtime] = [stages[0]!, stages.at(-1)!];
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const compose = parseCompose(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'));

  it('builds dist/ in a build stage from every directory tsconfig.build.json compiles', () => {
    expect(stages).toHaveLength(2);
    expect(build[0]).toMatch(/^FROM node:\S+ AS build$/);
    expect(build).toContain('RUN npm run build');
    const tsconfig = JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[]; compilerOptions: { outDir: string } };
    expect(tsconfig.compilerOptions.outDir).toBe('dist');
    for (const dir of tsconfig.include) expect(build).toContain(`COPY ${dir} ./${dir}`);
    expect(build).toContain('COPY tsconfig.json tsconfig.build.json ./');
  });

  it('runs the compiled engine on production dependencies only: no sources, no tsx', () => {
    expect(runtime).toContain('COPY --from=build /app/dist ./dist');
    expect(runtime.filter((l) => /^COPY /.test(l) && !/^COPY (--from=build|package\.json)/.test(l))).toEqual([]);
    expect(runtime.some((l) => /npm ci --omit=dev/.test(l))).toBe(true);
    expect(runtime.at(-1)).toBe('CMD ["node", "--enable-source-maps", "dist/src/api.js"]');
    expect(runtime.join('\n')).not.toMatch(/tsx/);
    expect(pkg.dependencies.tsx).toBeUndefined();
    expect(pkg.devDependencies.tsx).toBeDefined();
  });

  it('gives each compose service an npm script that runs a compiled entry point of an existing source', () => {
    for (const name of ['api', 'worker', 'simulator']) {
      const command = compose.services[name]?.command;
      expect({ name, command }).toEqual({ name, command: ['npm', 'run', name] });
      const script = pkg.scripts[name]!;
      const entry = /^node --enable-source-maps dist\/(\S+)\.js$/.exec(script)?.[1];
      expect({ name, script, entry: entry !== undefined }).toEqual({ name, script, entry: true });
      expect(fs.existsSync(path.join(ROOT, `${entry}.ts`))).toBe(true);
    }
  });
});
