import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';

const IndexedValueType = temporal.api.enums.v1.IndexedValueType;
const INDEXED: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  INT: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  KEYWORD: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
};

export interface EnsureSearchAttributesOptions {
  /** How long to wait for the attributes to become usable (default 60 s). */
  timeoutMs?: number;
  log?: (msg: string) => void;
}

/**
 * A visibility query naming every attribute: the frontend rejects it with INVALID_ARGUMENT
 * ("column name 'OrderId' is not a valid search attribute") until its namespace registry
 * maps the attribute, which is exactly when a workflow start carrying it would be refused.
 */
const PROBE_QUERY = SEARCH_ATTRIBUTES.map((k) => `${k.name} = ${k.type === 'INT' ? '0' : '"probe"'}`).join(' AND ');

/**
 * Registers the engine's search attributes on a Temporal cluster that may not have them
 * (a fresh cluster or namespace), and returns only once they are usable.
 *
 * On SQL visibility (PostgreSQL), `addSearchAttributes` maps each name onto one of a fixed
 * number of pre-allocated columns (Int01–Int03, Keyword01–Keyword10, …) in the namespace's
 * metadata, and every service picks the mapping up at its next namespace-registry refresh
 * (`system.namespaceCacheRefreshInterval`, 2 s): `listSearchAttributes` shows the names at
 * once, but starting a workflow with them is refused for a second or two. So the engine
 * probes with a visibility query that names them all before it starts anything or reports
 * ready. Attributes already registered with another type are an error an operator must fix.
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string, opts: EnsureSearchAttributesOptions = {}): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = existing.customAttributes ?? {};
  const clash = SEARCH_ATTRIBUTES.find((k) => k.name in known && known[k.name] !== INDEXED[k.type]);
  if (clash) {
    throw new Error(
      `search attribute ${clash.name} is registered in namespace ${namespace} as ${IndexedValueType[known[clash.name]!]}, the engine needs ${clash.type}`,
    );
  }
  const missing = SEARCH_ATTRIBUTES.filter((k) => !(k.name in known));
  if (missing.length > 0) {
    opts.log?.(`registering search attributes ${missing.map((k) => k.name).join(', ')} in namespace ${namespace}`);
    try {
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(missing.map((k) => [k.name, INDEXED[k.type]!])),
      });
    } catch (err) {
      // E.g. SQL visibility's slots of a type are all taken by other applications' attributes.
      throw new Error(`could not register search attributes ${missing.map((k) => k.name).join(', ')} in namespace ${namespace}: ${(err as Error).message}`);
    }
  }
  await untilUsable(connection, namespace, opts.timeoutMs ?? 60_000);
}

async function untilUsable(connection: Connection, namespace: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await connection.workflowService.countWorkflowExecutions({ namespace, query: PROBE_QUERY });
      return;
    } catch (err) {
      if (Date.now() > deadline) {
        throw new Error(`search attributes of namespace ${namespace} not usable after ${Math.round(timeoutMs / 1000)} s: ${(err as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
