import fs from 'node:fs';
import path from 'node:path';

/**
 * The production image installs the dependencies without the development ones (Dockerfile:
 * `npm ci --omit=dev`), so every package the engine's code imports at run time must be a
 * dependency: one that is only a development dependency loads under `npm start` and fails in
 * the image. Type-only imports are erased and need nothing.
 */
const ROOT = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

const sources = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return /\.tsx?$/.test(e.name) ? [full] : [];
  });

const IMPORT = /^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^'.][^']*)'|\b(?:require|import)\(\s*'([^'.][^']*)'\s*\)/gm;
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

it('every package src/ imports at run time is a production dependency', () => {
  const missing: string[] = [];
  for (const file of sources(path.join(ROOT, 'src')))
    for (const m of fs.readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const specifier = m[1] ?? m[2]!;
      if (specifier.startsWith('node:')) continue;
      if (!Object.hasOwn(pkg.dependencies, packageOf(specifier))) missing.push(`${path.relative(ROOT, file)}: ${specifier}`);
    }
  expect(missing).toEqual([]);
});
