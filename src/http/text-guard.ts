import type { Context, MiddlewareHandler } from 'hono';

/**
 * Text PostgreSQL cannot store: a NUL character (text may not hold 0x00), or a UTF-16
 * surrogate without its pair (no valid UTF-8 exists for it; JSON can still carry one as
 * `\ud800`). Caught here, before any route, for the query string, the path and a JSON body,
 * so that no such value reaches a query (a 500) or a workflow's input.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const storable = (s: string) => !s.includes('\u0000') && !LONE_SURROGATE.test(s);

/** Deeper than any request the interfaces take (theirs are 4 levels); deeper JSON is refused, not walked. */
export const MAX_JSON_DEPTH = 32;

export const UNSTORABLE_TEXT = 'text must not contain NUL characters or unpaired UTF-16 surrogates';

/** Why a request was refused here: where, what, and a machine-readable kind. */
export interface TextRefusal {
  loc: Array<string | number>;
  msg: string;
  type: 'string_unstorable' | 'json_too_deep' | 'path_encoding';
}

const unstorable = (loc: Array<string | number>): TextRefusal => ({ loc, msg: UNSTORABLE_TEXT, type: 'string_unstorable' });

/** The first unstorable string in a JSON value (keys count too), or JSON nested too deep to walk; null if neither. */
function firstBad(value: unknown, loc: Array<string | number>, depth = 0): TextRefusal | null {
  if (typeof value === 'string') return storable(value) ? null : unstorable(loc);
  if (!value || typeof value !== 'object') return null;
  if (depth >= MAX_JSON_DEPTH) return { loc: loc.slice(0, 1), msg: `JSON must not be nested more than ${MAX_JSON_DEPTH} levels deep`, type: 'json_too_deep' };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = firstBad(value[i], [...loc, i], depth + 1);
      if (bad) return bad;
    }
    return null;
  }
  for (const [key, v] of Object.entries(value)) {
    if (!storable(key)) return unstorable([...loc, key]);
    const bad = firstBad(v, [...loc, key], depth + 1);
    if (bad) return bad;
  }
  return null;
}

/** Refuses unstorable text and over-deep JSON with `answer` (the interface's 4xx), naming where. */
export function refuseUnstorableText(answer: (c: Context, refusal: TextRefusal) => Response): MiddlewareHandler {
  return async (c, next) => {
    const url = new URL(c.req.url);
    let path: string;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      return answer(c, { loc: ['path'], msg: 'the path has a malformed percent-encoding', type: 'path_encoding' });
    }
    if (!storable(path)) return answer(c, unstorable(['path']));
    for (const [key, value] of url.searchParams) {
      if (!storable(key) || !storable(value)) return answer(c, unstorable(['query', key]));
    }
    if ((c.req.header('content-type') ?? '').includes('json') && c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        return next(); // malformed JSON: the route's validation answers it
      }
      const bad = firstBad(body, ['body']);
      if (bad) return answer(c, bad);
    }
    return next();
  };
}
