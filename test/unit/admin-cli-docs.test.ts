import fs from 'node:fs';
import path from 'node:path';

/**
 * docs/operations.md lists every command of the admin CLI, with every option the CLI's own
 * usage gives it: a command added to src/cli/admin.ts and not to the operators' map fails here.
 */
const ROOT = path.join(__dirname, '../..');
const CLI = fs.readFileSync(path.join(ROOT, 'src/cli/admin.ts'), 'utf8');
const OPERATIONS = fs.readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');

interface Entry {
  /** The command's words, each alternative (`disable|enable`) its own command. */
  commands: string[];
  options: string[];
  text: string;
}

/** `partner disable|enable` as `partner disable`, `partner enable`. */
function expand(words: string[]): string[] {
  return words.reduce<string[]>((acc, word) => acc.flatMap((head) => word.split('|').map((w) => (head ? `${head} ${w}` : w))), ['']);
}

/** The words that name a command: up to its first option, placeholder or note. */
function commandWords(text: string): string[] {
  const words: string[] = [];
  for (const token of text.trim().split(/\s+/)) {
    if (!/^[a-z][a-z-]*(\|[a-z][a-z-]*)*$/.test(token)) break;
    words.push(token);
  }
  return words;
}

const optionsOf = (text: string) => [...new Set([...text.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]))];

/** The CLI's usage text, entry by entry (an entry's continuation lines are indented further). */
function usageEntries(): Entry[] {
  const usage = /const USAGE = `[\s\S]*?\ncommands:\n([\s\S]*?)\n\nAMOUNT/.exec(CLI)?.[1];
  if (!usage) throw new Error('src/cli/admin.ts has no USAGE with a "commands:" list');
  const entries: string[] = [];
  for (const line of usage.split('\n')) {
    if (/^ {2}[a-z]/.test(line)) entries.push(line);
    else if (entries.length) entries[entries.length - 1] += `\n${line}`;
  }
  return entries.map((text) => ({ commands: expand(commandWords(text)), options: optionsOf(text), text: text.trim() }));
}

/** The command lines of operations.md's "The admin CLI" block: each line's commands and options. */
function documented(): Array<{ commands: string[]; options: string[] }> {
  const section = /\n## The admin CLI\n([\s\S]*?)\n## /.exec(OPERATIONS)?.[1];
  if (!section) throw new Error('docs/operations.md has no section "The admin CLI"');
  return [...section.matchAll(/admin -- (.*)/g)].map((m) => ({ commands: expand(commandWords(m[1]!)), options: optionsOf(m[1]!) }));
}

/** The commands `toCommand` dispatches on (its `case '…':` labels). */
function dispatched(): string[] {
  const body = CLI.slice(CLI.indexOf('export function toCommand'));
  return [...body.matchAll(/case '([a-z][a-z -]*)':/g)].map((m) => m[1]!);
}

describe('the admin CLI in docs/operations.md', () => {
  const entries = usageEntries();
  const lines = documented();

  it('reads the CLI usage and the doc', () => {
    expect(entries.length).toBeGreaterThan(40);
    expect(lines.length).toBeGreaterThan(40);
  });

  it('every command the CLI dispatches is in its usage', () => {
    const inUsage = entries.flatMap((e) => e.commands);
    const missing = dispatched().filter((c) => !inUsage.some((u) => u === c || u.startsWith(`${c} `)));
    expect(missing).toEqual([]);
  });

  it('lists every command of the usage, with each of its options', () => {
    const missing: string[] = [];
    for (const entry of entries) {
      for (const command of entry.commands) {
        const shown = lines.filter((l) => l.commands.includes(command));
        if (!shown.length) {
          missing.push(`${command} (not listed)`);
          continue;
        }
        const options = new Set(shown.flatMap((l) => l.options));
        const absent = entry.options.filter((o) => !options.has(o));
        if (absent.length) missing.push(`${command}: ${absent.join(' ')}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
