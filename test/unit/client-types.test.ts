import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** The client's generated types match the OpenAPI documents the engine serves today (npm run client:generate). */
it('src/client/*-api.ts are generated from the current OpenAPI documents', () => {
  const root = path.resolve(__dirname, '../..');
  expect(() =>
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/client/generate.ts', '--check'], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: 'pipe',
    }),
  ).not.toThrow();
}, 60_000);
