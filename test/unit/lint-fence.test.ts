import path from 'node:path';
import { ESLint } from 'eslint';

/**
 * The fence around workflows/ (eslint.config.mjs, issue 13): replayed code may not reach Node,
 * the database or the engine's code; types are fine. Linting a probe as if it were a workflow
 * file shows the fence standing, so a loosened config fails here, not in production.
 */
const ROOT = path.resolve(__dirname, '../..');

async function lintAsWorkflow(code: string) {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, 'workflows/fence-probe.ts') });
  return result!.messages.map((m) => `${m.line}:${m.ruleId}`);
}

describe('the workflows/ lint fence', () => {
  it('refuses Node built-ins, the database, the client side, engine code and non-deterministic globals', async () => {
    const code = [
      "import fs from 'node:fs';",
      "import { Pool } from 'pg';",
      "import { Client } from '@temporalio/client';",
      "import { MAX_ID } from '../src/domain/ids';",
      'export const probe = () => [fs, Pool, Client, MAX_ID, process.env, crypto.randomUUID()];',
    ].join('\n');
    expect(await lintAsWorkflow(code)).toEqual([
      '1:@typescript-eslint/no-restricted-imports',
      '2:@typescript-eslint/no-restricted-imports',
      '3:@typescript-eslint/no-restricted-imports',
      '4:@typescript-eslint/no-restricted-imports',
      '5:no-restricted-globals',
      '5:no-restricted-globals',
    ]);
  });

  it('refuses state at module scope, which every workflow of a worker would share (preloaded modules)', async () => {
    const code = [
      'let count = 0;',
      'export let seen = 0;',
      'const byId = new Map<string, number>();',
      'export const ids = new Set<string>();',
      'export const LIMIT = 3;',
      'export const probe = () => { seen++; let local = count++; local += byId.size + ids.size + seen + LIMIT; return local; };',
    ].join('\n');
    expect(await lintAsWorkflow(code)).toEqual(['1:no-restricted-syntax', '2:no-restricted-syntax', '3:no-restricted-syntax', '4:no-restricted-syntax']);
  });

  it('lets a workflow import types from the engine and use @temporalio/workflow', async () => {
    const code = [
      "import { sleep, uuid4 } from '@temporalio/workflow';",
      "import type { Db } from '../src/db/client';",
      'export const probe = async (db: Db) => { await sleep(1); return [db, uuid4()]; };',
    ].join('\n');
    expect(await lintAsWorkflow(code)).toEqual([]);
  });
});
