import fs from 'node:fs';
import path from 'node:path';

/**
 * Reads README.md and the guides in docs/guides/ the way a newcomer does, for
 * test/integration/readme.test.ts: the walk-throughs' shell blocks as steps to run, the
 * answers they show as patterns to check, and the "Sandbox scenarios" table as rows.
 *
 * The walk-throughs continue one another: README.md's first, then each guide's in the order
 * of docs/guides/README.md. A shell function or variable one of them defines holds in the
 * ones after it.
 *
 * The rules the README states at its walk-through, made precise:
 * - A step is a line calling a shell function the walk-through defined (`A …`, `B …`: curl
 *   with the function's headers, `$VAR` from the walk-through's `VAR=<…>` assignments), or
 *   `npm run … admin -- <args>` (the admin CLI). A command goes on while a quote is open.
 * - `<name>` in a step is the first field `name` (depth first, in document order) of the
 *   latest earlier answer that has one; `<flag name>` the same among objects whose `flag` is
 *   true; `<name[0].other>` follows that path from the field found.
 * - A `# {…}` or `# […]` line right after a step is its answer: objects match when they hold
 *   at least the fields shown, arrays element by element (`...` at the end: more may follow),
 *   `...` or `…` inside a string stands for any text (a parenthesised remark right after it
 *   describes what was left out), `...` as a value for any value.
 * - A trailing `# → …` note is a comma-separated list (parenthesised text is a remark):
 *   `201` the status (else any 2xx), `name` a field some object of the answer has,
 *   `name value` one that has it with that value, `name > 0` one whose number is larger.
 *   Anything else in a note is an error: a note is either checkable or not a `→` note.
 */

export interface Located {
  /** The document, relative to the repository (`README.md`, `docs/guides/…`), for messages. */
  file: string;
  /** 1-based line in that document, for messages. */
  line: number;
  text: string;
}

export type Step =
  | (Located & { kind: 'define'; name: string; words: string[] })
  | (Located & { kind: 'assign'; vars: Array<[string, string]> })
  | (Located & { kind: 'admin'; argv: string[]; answer?: Located; note?: string })
  | (Located & { kind: 'call'; fn: string; words: string[]; answer?: Located; note?: string });

interface Block {
  heading: string;
  line: number;
  lines: string[];
}

/** Every fenced block of a language, with the heading it sits under and its first line's number. */
export function codeBlocks(markdown: string, lang: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (/^#{1,6} /.test(l)) heading = l.replace(/^#+ /, '');
    if (l.trim() === '```' + lang) {
      const start = i + 1;
      const body: string[] = [];
      for (i = start; i < lines.length && lines[i]!.trim() !== '```'; i++) body.push(lines[i]!);
      blocks.push({ heading, line: start + 1, lines: body });
    }
  }
  return blocks;
}

/** Shell words of a command (quotes removed), the comment after it, and whether a quote is still open. */
export function shellWords(src: string): { words: string[]; comment: string | null; open: boolean } {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (quote === '"' && ch === '\\' && i + 1 < src.length) cur += src[++i];
      else cur += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === '#' && !inWord) {
      return { words, comment: src.slice(i + 1).trim(), open: false };
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return { words, comment: null, open: quote !== null };
}

/** A markdown document and where it is, relative to the repository. */
export interface Doc {
  file: string;
  markdown: string;
}

/**
 * The steps of the walk-throughs: the shell blocks under the headings `pick` accepts, document
 * after document, in order. A function defined in one document can be called in the later ones.
 */
export function walkThrough(docs: Doc[], pick: (heading: string) => boolean): Step[] {
  const steps: Step[] = [];
  const functions = new Set<string>();
  for (const { file, markdown } of docs)
    for (const block of codeBlocks(markdown, 'sh').filter((b) => pick(b.heading))) {
      let last: Step | undefined;
      for (let i = 0; i < block.lines.length; i++) {
        const line = block.line + i;
        const at = `${file}:${line}`;
        const first = block.lines[i]!;
        if (!first.trim()) {
          last = undefined;
          continue;
        }
        if (first.trimStart().startsWith('#')) {
          const comment = first.trim().replace(/^#\s?/, '');
          if (last && (last.kind === 'call' || last.kind === 'admin') && /^[[{]/.test(comment)) last.answer = { file, line, text: comment };
          last = undefined;
          continue;
        }
        // A command goes on while a quote is open.
        let text = first;
        let parsed = shellWords(text);
        while (parsed.open && i + 1 < block.lines.length) {
          text += '\n' + block.lines[++i]!;
          parsed = shellWords(text);
        }
        if (parsed.open) throw new Error(`${at}: a quote is never closed`);
        const note = parsed.comment?.startsWith('→') ? parsed.comment.slice(1).trim() : undefined;
        const def = /^(\w+)\(\)\s*\{(.*)\}\s*$/.exec(text.trim());
        if (def) {
          functions.add(def[1]!);
          const inner = shellWords(def[2]!.trim().replace(/;\s*$/, '')).words;
          last = { kind: 'define', file, line, text, name: def[1]!, words: inner };
        } else if (/^\w+=/.test(text.trim())) {
          const vars = text
            .split(';')
            .map((a) => a.trim())
            .filter(Boolean)
            .map((a): [string, string] => {
              const m = /^(\w+)=(.*)$/.exec(a);
              if (!m) throw new Error(`${at}: not an assignment: ${a}`);
              return [m[1]!, m[2]!];
            });
          last = { kind: 'assign', file, line, text, vars };
        } else if (parsed.words[0] === 'npm' && parsed.words.includes('admin') && parsed.words.includes('--')) {
          last = { kind: 'admin', file, line, text, argv: parsed.words.slice(parsed.words.indexOf('--') + 1), note };
        } else if (functions.has(parsed.words[0] ?? '')) {
          last = { kind: 'call', file, line, text, fn: parsed.words[0]!, words: parsed.words.slice(1), note };
        } else {
          throw new Error(`${at}: a walk-through command the test cannot run: ${first.trim()}`);
        }
        if (note === undefined && parsed.comment?.includes('→')) throw new Error(`${at}: a note must start with →`);
        steps.push(last);
      }
    }
  return steps;
}

/** What curl would send for these arguments (function words first, then the call's). */
export function curlRequest(words: string[]): { method: string; url: string; headers: string[]; body?: string } {
  let method: string | undefined;
  let url: string | undefined;
  let body: string | undefined;
  const headers: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === 'curl' || w === '-s' || w === '$@') continue;
    else if (w === '-X') method = words[++i];
    else if (w === '-H') headers.push(words[++i]!);
    else if (w === '-d') body = words[++i];
    else if (/^https?:\/\//.test(w)) url = w;
    else throw new Error(`curl argument the test does not know: ${w}`);
  }
  if (!url) throw new Error('no URL');
  return { method: method ?? (body === undefined ? 'GET' : 'POST'), url, headers, body };
}

// ----------------------------------------------------------------------------- placeholders

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Depth first, in document order: the first object for which `test` holds. */
function findObject(value: unknown, test: (o: Record<string, unknown>) => boolean): Record<string, unknown> | undefined {
  if (Array.isArray(value)) {
    for (const v of value) {
      const found = findObject(v, test);
      if (found) return found;
    }
  } else if (isObject(value)) {
    if (test(value)) return value;
    for (const v of Object.values(value)) {
      const found = findObject(v, test);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * A placeholder's value in one answer, or undefined when that answer has none: from the first
 * object, in document order, that holds it with a value (`<prices[0].service_id>` skips the
 * seats with no prices).
 */
export function resolvePlaceholder(placeholder: string, answer: unknown): unknown {
  const flagged = /^(\w+) (\w+)$/.exec(placeholder);
  const m = flagged ? null : /^(\w+)((?:\[\d+\]|\.\w+)*)$/.exec(placeholder);
  if (!flagged && !m) throw new Error(`not a placeholder the rule knows: <${placeholder}>`);
  const [name, flag] = flagged ? [flagged[2]!, flagged[1]!] : [m![1]!, undefined];
  const path = (m?.[2] ?? '').match(/\[\d+\]|\.\w+/g) ?? [];
  const valueIn = (holder: Record<string, unknown>): unknown => {
    let value: unknown = holder[name];
    for (const step of path) {
      if (value === undefined || value === null) return undefined;
      value = step.startsWith('[') ? (value as unknown[])[Number(step.slice(1, -1))] : (value as Record<string, unknown>)[step.slice(1)];
    }
    return value;
  };
  const holder = findObject(answer, (o) => name in o && (flag === undefined || o[flag] === true) && (path.length === 0 || valueIn(o) != null));
  return holder ? valueIn(holder) : undefined;
}

/** Replaces every `<…>` with its value from the answers so far (newest first). */
export function fillPlaceholders(text: string, answers: unknown[]): string {
  return text.replace(/<([A-Za-z_][\w .[\]]*)>/g, (_, placeholder: string) => {
    for (let i = answers.length - 1; i >= 0; i--) {
      const value = resolvePlaceholder(placeholder, answers[i]);
      if (value !== undefined && value !== null && typeof value !== 'object') return String(value);
    }
    throw new Error(`no earlier answer has a value for <${placeholder}>`);
  });
}

// ----------------------------------------------------------------------------- answer patterns

type Pattern =
  | { t: 'object'; fields: Array<[string, Pattern]> }
  | { t: 'array'; items: Pattern[]; open: boolean }
  | { t: 'text'; value: string }
  | { t: 'literal'; value: number | boolean | null }
  | { t: 'any' };

const ELLIPSIS = /\.\.\.|…/;

/** Parses an answer as a walk-through shows it: JSON with `...`/`…` elisions. */
export function parsePattern(src: string): Pattern {
  let i = 0;
  const fail = (what: string): never => {
    throw new Error(`${what} at ${i} in ${src}`);
  };
  const ws = () => {
    while (i < src.length && /\s/.test(src[i]!)) i++;
  };
  const elision = () => {
    ws();
    const m = /^(\.\.\.|…)/.exec(src.slice(i));
    if (!m) return false;
    i += m[0].length;
    return true;
  };
  const string = (): string => {
    if (src[i] !== '"') fail('expected a string');
    let j = i + 1;
    while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
    const s = JSON.parse(src.slice(i, j + 1)) as string;
    i = j + 1;
    return s;
  };
  const value = (): Pattern => {
    ws();
    const ch = src[i];
    if (ch === '{') {
      i++;
      const fields: Array<[string, Pattern]> = [];
      for (;;) {
        ws();
        if (src[i] === '}') break;
        if (!elision()) {
          const key = string();
          ws();
          if (src[i++] !== ':') fail('expected :');
          fields.push([key, value()]);
        }
        ws();
        if (src[i] === ',') i++;
        else if (src[i] !== '}') fail('expected , or }');
      }
      i++;
      return { t: 'object', fields };
    }
    if (ch === '[') {
      i++;
      const items: Pattern[] = [];
      let open = false;
      for (;;) {
        ws();
        if (src[i] === ']') break;
        if (elision()) open = true;
        else items.push(value());
        ws();
        if (src[i] === ',') i++;
        else if (src[i] !== ']') fail('expected , or ]');
      }
      i++;
      return { t: 'array', items, open };
    }
    if (ch === '"') return { t: 'text', value: string() };
    if (elision()) return { t: 'any' };
    const lit = /^(-?\d+(?:\.\d+)?|true|false|null)/.exec(src.slice(i));
    if (!lit) return fail('unexpected text');
    i += lit[0].length;
    return { t: 'literal', value: JSON.parse(lit[0]) as number | boolean | null };
  };
  const p = value();
  ws();
  if (i !== src.length) fail('trailing text');
  return p;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Where `actual` differs from the pattern, or null. */
export function mismatch(p: Pattern, actual: unknown, at = '$'): string | null {
  switch (p.t) {
    case 'any':
      return actual === undefined ? `${at}: missing` : null;
    case 'literal':
      return actual === p.value ? null : `${at}: ${JSON.stringify(actual)} is not ${JSON.stringify(p.value)}`;
    case 'text': {
      if (typeof actual !== 'string') return `${at}: ${JSON.stringify(actual)} is not a string like ${JSON.stringify(p.value)}`;
      if (!ELLIPSIS.test(p.value)) return actual === p.value ? null : `${at}: ${JSON.stringify(actual)} is not ${JSON.stringify(p.value)}`;
      const parts = p.value.split(/(?:\.\.\.|…)(?:\([^)]*\))?/).map(escapeRe);
      return new RegExp(`^${parts.join('[\\s\\S]*')}$`).test(actual) ? null : `${at}: ${JSON.stringify(actual)} is not like ${JSON.stringify(p.value)}`;
    }
    case 'object': {
      if (!isObject(actual)) return `${at}: ${JSON.stringify(actual)} is not an object`;
      for (const [k, v] of p.fields) {
        if (!(k in actual)) return `${at}.${k}: missing`;
        const m = mismatch(v, actual[k], `${at}.${k}`);
        if (m) return m;
      }
      return null;
    }
    case 'array': {
      if (!Array.isArray(actual)) return `${at}: ${JSON.stringify(actual)} is not an array`;
      if (p.open ? actual.length < p.items.length : actual.length !== p.items.length) return `${at}: ${actual.length} elements, not ${p.items.length}`;
      for (let k = 0; k < p.items.length; k++) {
        const m = mismatch(p.items[k]!, actual[k], `${at}[${k}]`);
        if (m) return m;
      }
      return null;
    }
  }
}

// ----------------------------------------------------------------------------- notes

export type NoteItem =
  { t: 'status'; status: number } | { t: 'has'; field: string } | { t: 'equals'; field: string; value: string } | { t: 'above'; field: string; value: number };

/** A `→` note's items; throws on an item the rule cannot check. */
export function parseNote(note: string): NoteItem[] {
  return note
    .replace(/\([^)]*\)/g, '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((item): NoteItem => {
      if (/^[1-5]\d\d$/.test(item)) return { t: 'status', status: Number(item) };
      if (/^\w+$/.test(item)) return { t: 'has', field: item };
      const above = /^(\w+) > (-?\d+(?:\.\d+)?)$/.exec(item);
      if (above) return { t: 'above', field: above[1]!, value: Number(above[2]) };
      const equals = /^(\w+) (\S.*)$/.exec(item);
      if (equals && !/\s/.test(equals[1]!)) return { t: 'equals', field: equals[1]!, value: equals[2]! };
      throw new Error(`a note item the test cannot check: "${item}"`);
    });
}

const sameValue = (actual: unknown, text: string) => {
  if (typeof actual === 'number') return text.trim() !== '' && Number(text) === actual;
  if (typeof actual === 'string') return actual === (/^".*"$/.test(text) ? (JSON.parse(text) as string) : text);
  return String(actual) === text;
};

/** Where the answer disagrees with a note item (status items are checked by the caller), or null. */
export function noteMismatch(item: NoteItem, answer: unknown): string | null {
  switch (item.t) {
    case 'status':
      return null;
    case 'has':
      return findObject(answer, (o) => o[item.field] !== undefined) ? null : `no field ${item.field}`;
    case 'equals':
      return findObject(answer, (o) => item.field in o && sameValue(o[item.field], item.value)) ? null : `no field ${item.field} = ${item.value}`;
    case 'above':
      return findObject(answer, (o) => item.field in o && Number(o[item.field]) > item.value) ? null : `no field ${item.field} > ${item.value}`;
  }
}

// ----------------------------------------------------------------------------- tables

/** The rows of the first table after a heading, as cells (header row and separator left out). */
export function tableAfter({ file, markdown }: Doc, heading: string): Array<Located & { cells: string[] }> {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => /^#{1,6} /.test(l) && l.replace(/^#+ /, '') === heading);
  if (start < 0) throw new Error(`${file} has no heading "${heading}"`);
  let i = start + 1;
  while (i < lines.length && !lines[i]!.startsWith('|')) {
    if (/^#{1,6} /.test(lines[i]!)) throw new Error(`${file}: no table under "${heading}"`);
    i++;
  }
  const rows: Array<Located & { cells: string[] }> = [];
  for (i += 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
    const text = lines[i]!;
    const cells = text
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim().replace(/\\\|/g, '|'));
    rows.push({ file, line: i + 1, text, cells });
  }
  return rows;
}

// ----------------------------------------------------------------------------- the documents

const ROOT = path.join(__dirname, '../..');

/** A document of the repository, read now. */
export function readDoc(file: string): Doc {
  return { file, markdown: fs.readFileSync(path.join(ROOT, file), 'utf8') };
}

/**
 * The guides, in the order docs/guides/README.md lists them (its links to `*.md` in the same
 * folder). A guide the index does not list, or a link to a guide that is not there, is an error:
 * the walk-throughs run in that order, so each must have its place.
 */
export function guides(): Doc[] {
  const dir = 'docs/guides';
  const index = readDoc(`${dir}/README.md`).markdown;
  const listed = [...new Set([...index.matchAll(/\]\((?:\.\/)?([\w-]+\.md)\)/g)].map((m) => m[1]!))];
  const present = fs.readdirSync(path.join(ROOT, dir)).filter((f) => f.endsWith('.md') && f !== 'README.md');
  const unlisted = present.filter((f) => !listed.includes(f));
  if (unlisted.length) throw new Error(`${dir}/README.md does not list ${unlisted.join(', ')}`);
  const missing = listed.filter((f) => !present.includes(f));
  if (missing.length) throw new Error(`${dir}/README.md lists ${missing.join(', ')}, which ${dir} does not have`);
  return listed.map((f) => readDoc(`${dir}/${f}`));
}
