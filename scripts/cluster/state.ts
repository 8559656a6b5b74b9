/**
 * `CLUSTER_DIR/state.json`: what `npm run cluster` tells tools about the running topology,
 * rewritten atomically on every change by its supervisor. One type for the writer
 * (scripts/cluster/supervisor.ts) and its readers (`npm run chaos`, `bench:pay --cluster`).
 */
import fs from 'node:fs';

export interface PartState {
  pid: number | null;
  /** Started and answering its readiness probe. */
  up: boolean;
  restarts: number;
  /** Where it listens, as printed at start. */
  listens: string;
  /** The command line, so a later run can tell an orphan of this one from an unrelated process. */
  command: string;
}

/** Where the topology's entry points are: fixed for the run. */
export interface ClusterInfo {
  /** The engine's own database (role booking). */
  databaseUrl: string;
  /** The cluster PostgreSQL's superuser: creates test databases, reads statistics. */
  adminDatabaseUrl: string;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  supplierUrl: string;
  sandbox: boolean;
  adminToken: string;
  apis: Array<{ name: string; url: string; adminUrl: string }>;
}

export interface ClusterState extends ClusterInfo {
  supervisorPid: number;
  /** Every part started and ready once. */
  ready: boolean;
  parts: Record<string, PartState>;
}

export function readClusterState(file: string): ClusterState {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as ClusterState;
}
