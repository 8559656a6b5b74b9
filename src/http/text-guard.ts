import type { Context, MiddlewareHandler } from 'hono';

/**
 * Text PostgreSQL cannot store: a NUL character (text may not hold 0x00), or a UTF-16
 * surrogate without its pair (no valid UTF-8 exists for it; JSON can still carry one as
 * `\ud800`). Caught here, before any route, for the query string, the path and a JSON body,
 * so that no such value reaches a query (a 500) or a workflow's input.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const storable = (s: string) => !s.includes('\u0000') && !LONE_SURROGATE.test(s);

/** The location of the first unstorable string in a JSON value (keys count too), or null. */
function firstBad(value: unknown, loc: Array<string | number>): Array<string | number> | null {
  if (typeof value === 'string') return storable(value) ? null : loc;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = firstBad(value[i], [...loc, i]);
      if (bad) return bad;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (!storable(key)) return [...loc, key];
      const bad = firstBad(v, [...loc, key]);
      if (bad) return bad;
    }
  }
  return null;
}

export const UNSTORABLE_TEXT = 'text must not contain NUL characters or unpaired UTF-16 surrogates';

/** Refuses unstorable text with `answer` (the interface's 4xx), naming where it was. */
export function refuseUnstorableText(answer: (c: Context, loc: Array<string | number>) => Response): MiddlewareHandler {
  return async (c, next) => {
    const url = new URL(c.req.url);
    let path: string;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      return answer(c, ['path']);
    }
    if (!storable(path)) return answer(c, ['path']);
    for (const [key, value] of url.searchParams) {
      if (!storable(key) || !storable(value)) return answer(c, ['query', key]);
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
