import { toCommand } from '../../src/cli/admin';
import { curlRequest, fillPlaceholders, mismatch, noteMismatch, parseNote, parsePattern, type Step } from './readme';
import { ADMIN_TOKEN, type TestStack } from './stack';

/** Where the walk-throughs send their requests (the engine `npm start` runs). */
const ORIGIN = 'http://127.0.0.1:8080';

export interface Answer {
  step: Step & { kind: 'call' | 'admin' };
  status: number;
  body: unknown;
  method: string;
  path: string;
}

async function send(
  app: { request: (input: string, init?: RequestInit) => Response | Promise<Response> },
  method: string,
  url: string,
  headers: string[],
  body?: string,
) {
  const h = new Headers();
  for (const header of headers) {
    const colon = header.indexOf(':');
    h.set(header.slice(0, colon).trim(), header.slice(colon + 1).trim());
  }
  const res = await app.request(url, { method, headers: h, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}

/**
 * Runs the walk-through steps in order; each answer is checked against what the walk-through
 * shows as soon as it comes. `beforeAdmin` runs before each operator's command: what a
 * supplier does meanwhile, which a walk-through on the simulator asks of it by sandbox header.
 */
export async function runWalkThrough(stack: TestStack, steps: Step[], beforeAdmin?: (argv: string[]) => Promise<void>): Promise<Answer[]> {
  const answers: Answer[] = [];
  const bodies = () => answers.map((a) => a.body);
  const functions = new Map<string, string[]>();
  const vars = new Map<string, string>();
  for (const step of steps) {
    const where = `${step.file}:${step.line}`;
    if (step.kind === 'define') {
      functions.set(step.name, step.words);
      continue;
    }
    if (step.kind === 'assign') {
      for (const [name, value] of step.vars) vars.set(name, fillPlaceholders(value, bodies()));
      continue;
    }
    let answer: Answer;
    if (step.kind === 'admin') {
      await beforeAdmin?.(step.argv);
      // As the CLI does: the same arguments, to the admin API.
      const { command } = toCommand(step.argv);
      const res = await send(
        stack.admin,
        command.method,
        `http://engine.test${command.path}`,
        [`Authorization: Bearer ${ADMIN_TOKEN}`, 'Content-Type: application/json'],
        command.body ? JSON.stringify(command.body) : undefined,
      );
      answer = { step, ...res, method: command.method, path: command.path };
    } else {
      const fnWords = functions.get(step.fn)!.map((w) =>
        w.replace(/\$\{?(\w+)\}?/g, (_, name: string) => {
          if (name === '@') return '$@';
          const value = vars.get(name);
          if (value === undefined) throw new Error(`${where}: ${step.fn}() uses $${name}, which the walk-through never sets`);
          return value;
        }),
      );
      const req = curlRequest([...fnWords, ...step.words.map((w) => fillPlaceholders(w, bodies()))]);
      if (!req.url.startsWith(ORIGIN)) throw new Error(`${where}: ${req.url} is not the engine's ${ORIGIN}`);
      const res = await send(stack.app, req.method, req.url.replace(ORIGIN, 'http://engine.test'), req.headers, req.body);
      answer = { step, ...res, method: req.method, path: new URL(req.url).pathname };
    }
    const shown = `${where}: ${answer.method} ${answer.path} answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 600)}`;
    const items = step.note ? parseNote(step.note) : [];
    const status = items.find((i) => i.t === 'status');
    if (status && status.t === 'status') {
      if (answer.status !== status.status) throw new Error(`${shown}\n  the walk-through says ${status.status}`);
    } else if (answer.status < 200 || answer.status > 299) throw new Error(`${shown}\n  the walk-through shows no error here`);
    for (const item of items) {
      const m = noteMismatch(item, answer.body);
      if (m) throw new Error(`${shown}\n  the walk-through's note "→ ${step.note}": ${m}`);
    }
    if (step.answer) {
      const m = mismatch(parsePattern(step.answer.text), answer.body);
      if (m) throw new Error(`${shown}\n  ${step.answer.file}:${step.answer.line} shows ${step.answer.text}\n  ${m}`);
    }
    answers.push(answer);
  }
  return answers;
}
