import type { Context, MiddlewareHandler } from 'hono';

type RouteList = ReadonlyArray<{ method: string; path: string }>;
interface Route {
  method: string;
  /** As registered, under the app's prefix. */
  path: string;
  pattern: RegExp;
  /** No parameter and no wildcard: the route names one resource. */
  literal: boolean;
}

/** A route pattern (`/api/tours/:id/`, `:id{[0-9]+}`, `*`) as a regular expression; a trailing slash is optional. */
function patternOf(path: string): RegExp {
  const body = path
    .replace(/\/$/, '')
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      const param = /^:\w+(?:\{(.+)\})?$/.exec(segment);
      if (param) return param[1] ? `(?:${param[1]})` : '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${body}/?$`);
}

/** The app's routes (middleware, registered for every method, does not count), under `prefix`. */
function routesOf(routes: RouteList, prefix = ''): Route[] {
  return routes
    .filter((r) => r.method !== 'ALL')
    .map((r) => ({ method: r.method, path: prefix + r.path, pattern: patternOf(prefix + r.path), literal: !/[:*]/.test(r.path) }));
}

/**
 * The methods served on a path. A path that a literal route names belongs to that route
 * alone: `/api/tours/prebook/` is the prebook resource (POST), not the tour "prebook" that
 * `GET /api/tours/:id/` would take it for.
 */
function methodsOn(routes: Route[], path: string): string[] {
  const matching = routes.filter((r) => r.pattern.test(path));
  const literal = matching.filter((r) => r.literal);
  const methods = new Set((literal.length > 0 ? literal : matching).map((r) => r.method));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/**
 * The methods an app serves on a path, for a request whose method it does not: the answer
 * is then 405 with `Allow`, not 404 ("no such resource" would be untrue). Read once from
 * the app's routes.
 */
export function allowedMethods(app: { routes: RouteList }): (path: string) => string[] {
  const routes = routesOf(app.routes);
  return (path) => methodsOn(routes, path);
}

/** 405 with `Allow`, in the interface's shape (`{ok: false, error}` under /api; FastAPI's string detail under /v1). */
export function methodNotAllowed(c: Context, methods: string[]): Response {
  c.header('Allow', methods.join(', '));
  if (c.req.path.startsWith('/api/')) {
    return c.json({ ok: false, error: `method ${c.req.method} is not allowed on ${c.req.path}; use ${methods.join(' or ')}` }, 405);
  }
  return c.json({ detail: 'Method Not Allowed' }, 405);
}

/**
 * For an interface mounted at `prefix`: a request to a path a literal route names, with a
 * method only a templated route would take there (GET /api/tours/prebook/ reaching
 * GET /api/tours/:id/ as tour "prebook"), is 405 — as the published document says, which
 * gives that path only the literal route's methods. Goes after authentication.
 */
export function literalPathsFirst(prefix: string, app: { routes: RouteList }): MiddlewareHandler {
  // The paths literal routes name (without their optional trailing slash), with the methods
  // served there: read once, so a request costs one lookup instead of a scan of every route.
  let literals: Map<string, string[]> | undefined;
  const withoutSlash = (path: string) => (path.endsWith('/') ? path.slice(0, -1) : path);
  return async (c, next) => {
    if (!literals) {
      const routes = routesOf(app.routes, prefix);
      const paths = routes.filter((r) => r.literal).map((r) => withoutSlash(r.path));
      literals = new Map(paths.map((path) => [path, methodsOn(routes, path)]));
    }
    const methods = literals.get(withoutSlash(c.req.path));
    if (!methods || methods.includes(c.req.method)) return next();
    return methodNotAllowed(c, methods);
  };
}
