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

/**
 * The methods an app serves on a path, for a request whose method it does not: the answer
 * is then 405 with `Allow`, not 404 ("no such resource" would be untrue). Read once from
 * the app's routes (middleware, registered for every method, does not count).
 */
export function allowedMethods(app: { routes: ReadonlyArray<{ method: string; path: string }> }): (path: string) => string[] {
  const routes = app.routes.filter((r) => r.method !== 'ALL').map((r) => ({ method: r.method, pattern: patternOf(r.path) }));
  return (path) => {
    const methods = new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  };
}
