import fs from 'node:fs';
import path from 'node:path';
import { parseDocument, visit, isScalar } from 'yaml';

/**
 * Every command line in the docs that starts docker-compose.yml sets each variable the file
 * requires (`${VAR:?message}` or `${VAR?message}`): Compose refuses to start without them,
 * so a command that leaves one out fails as written.
 */

const ROOT = path.resolve(__dirname, '../..');

/** The variables docker-compose.yml cannot start without, read from its values as Compose reads them. */
function requiredVariables(composeText: string): string[] {
  const doc = parseDocument(composeText, { merge: true });
  if (doc.errors.length > 0) throw new Error(doc.errors.map((e) => e.message).join('\n'));
  const required = new Set<string>();
  visit(doc, {
    Scalar(_key, node) {
      if (!isScalar(node) || typeof node.value !== 'string') return;
      // `$$` is Compose's escape for a literal `$`: drop it before looking for interpolations.
      for (const m of node.value.replaceAll('$$', '').matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*):?\?/g)) required.add(m[1]!);
    },
  });
  return [...required].sort();
}

/** README.md and every Markdown file under docs/. */
function docFiles(): string[] {
  const found: string[] = [path.join(ROOT, 'README.md')];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.md')) found.push(full);
    }
  };
  walk(path.join(ROOT, 'docs'));
  return found;
}

interface CommandLine {
  file: string;
  line: number;
  text: string;
}

/**
 * The shell commands a Markdown text shows: each line of its fenced code blocks (a line
 * ending in `\` continued by the next) and each inline code span.
 */
function commandLines(file: string, text: string): CommandLine[] {
  const lines = text.split('\n');
  const commands: CommandLine[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      continue;
    }
    if (fence !== null) {
      const start = i;
      let joined = line.trim();
      while (joined.endsWith('\\') && i + 1 < lines.length) joined = `${joined.slice(0, -1).trim()} ${lines[++i]!.trim()}`;
      commands.push({ file, line: start + 1, text: joined });
      continue;
    }
    for (const m of line.matchAll(/`([^`]+)`/g)) commands.push({ file, line: i + 1, text: m[1]! });
  }
  return commands;
}

/** A command that brings the compose file up: `docker compose … up` (or `docker-compose … up`). */
const startsCompose = (command: string) => /\bdocker[ -]compose\b(?:\s+\S+)*?\s+up\b/.test(command);

/** The variables a command line sets for the command it runs: `NAME=value` words before it. */
function variablesSet(command: string): string[] {
  const before = command.slice(0, command.search(/\bdocker[ -]compose\b/));
  return [...before.matchAll(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)=/g)].map((m) => m[1]!);
}

const compose = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');

describe('the docs start docker-compose.yml as it requires', () => {
  it('reads the variables the compose file requires', () => {
    expect(requiredVariables(compose)).toEqual(expect.arrayContaining(['ADMIN_TOKEN', 'WEBHOOK_SECRETS_KEY', 'TEMPORAL_PAYLOAD_KEY']));
    expect(requiredVariables('x: ${A:?set A}\ny: ${B?b}\nz: ${C:-c}\nw: $${D:?literal}\n')).toEqual(['A', 'B']);
  });

  it('finds every start of the compose file in a code block or a code span, a continued line joined', () => {
    const text = ['Run `docker compose --profile monitoring up` or:', '```sh', 'A=1 B=2 \\', '  docker compose up --build', 'docker compose down', '```'].join(
      '\n',
    );
    const starts = commandLines('x.md', text).filter((c) => startsCompose(c.text));
    expect(starts.map((c) => [c.line, c.text])).toEqual([
      [1, 'docker compose --profile monitoring up'],
      [3, 'A=1 B=2 docker compose up --build'],
    ]);
    expect(variablesSet(starts[1]!.text)).toEqual(['A', 'B']);
  });

  it('every command line in README.md and docs/ that starts it sets each required variable', () => {
    const required = requiredVariables(compose);
    const starts = docFiles().flatMap((file) => commandLines(path.relative(ROOT, file), fs.readFileSync(file, 'utf8')).filter((c) => startsCompose(c.text)));
    // README.md's production command and docs/operations.md's, with its monitoring profile.
    expect(starts.length).toBeGreaterThanOrEqual(3);
    const short = starts
      .map((c) => ({ at: `${c.file}:${c.line}`, missing: required.filter((v) => !variablesSet(c.text).includes(v)) }))
      .filter((c) => c.missing.length > 0);
    expect(short).toEqual([]);
  });
});
