import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { PartSpec } from './supervisor';

/** Debian's PostgreSQL binaries (initdb and postgres live outside PATH there). */
export function findPostgresBin(): string {
  if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions[0]) return path.join(root, versions[0], 'bin');
  try {
    return path.dirname(fs.realpathSync(execFileSync('which', ['initdb'], { encoding: 'utf8' }).trim()));
  } catch {
    throw new Error("PostgreSQL's server binaries were not found: install them (Debian: apt-get install postgresql) or set POSTGRES_BIN_DIR");
  }
}

/** PostgreSQL will not run as root: as root, its files and process belong to the `postgres` user. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error('running as root, PostgreSQL needs a `postgres` user to run as (useradd --system postgres)');
  }
}

export interface ClusterPostgres {
  spec: PartSpec;
  /** Superuser URL (creates the test databases). */
  adminUrl: string;
  /** The engine's own database and role. */
  engineUrl: string;
  /** Creates the roles and the engine's database once the server is up (idempotent). */
  provision(): Promise<void>;
}

/** A PostgreSQL server of its own under `dir`, initialised on first use, trust auth on loopback. */
export function clusterPostgres(dir: string, port: number): ClusterPostgres {
  const bin = findPostgresBin();
  const data = path.join(dir, 'data');
  const user = runAs();
  if (!fs.existsSync(path.join(data, 'PG_VERSION'))) {
    fs.mkdirSync(dir, { recursive: true });
    if (user) fs.chownSync(dir, user.uid, user.gid);
    try {
      execFileSync(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'], { stdio: ['ignore', 'ignore', 'pipe'], ...user });
    } catch (err) {
      const stderr = String((err as { stderr?: Buffer }).stderr ?? '').trim();
      const hint = user ? ` (as root it runs as the postgres user, which must be able to reach ${dir}: every directory above it needs o+x)` : '';
      throw new Error(`initdb failed${hint}: ${stderr || (err as Error).message}`);
    }
  }
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  /** One superuser connection for `fn`. */
  const asAdmin = async <T>(fn: (client: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };
  return {
    adminUrl,
    engineUrl: `postgres://booking:booking@127.0.0.1:${port}/booking`,
    spec: {
      name: 'postgres',
      command: path.join(bin, 'postgres'),
      // Room for two APIs, two workers, four Temporal services and the test suite's pools.
      args: ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=400', '-c', 'shared_buffers=256MB'],
      ...user,
      listens: `127.0.0.1:${port} (engine: booking/booking db booking; Temporal: temporal/temporal)`,
      ready: () =>
        asAdmin(async (client) => {
          await client.query('select 1');
          return true;
        }),
      stopSignal: 'SIGINT',
    },
    provision: () =>
      asAdmin(async (client) => {
        await client.query(`DO $$ BEGIN
          IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'temporal') THEN CREATE ROLE temporal LOGIN CREATEDB PASSWORD 'temporal'; END IF;
          IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'booking') THEN CREATE ROLE booking LOGIN PASSWORD 'booking'; END IF;
        END $$`);
        // CREATE DATABASE cannot run inside a DO block or transaction: checked first instead.
        const { rowCount } = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'booking'`);
        if (!rowCount) await client.query('CREATE DATABASE booking OWNER booking');
      }),
  };
}
