import type { Context } from 'hono';

/** A console's pages that need a session: without one, the sign-in page; with one, the page drawn for its viewer. */
export const signedInPages =
  <R, V>(requestOf: (c: Context) => Promise<R>, viewerOf: (r: R) => Promise<V | null>) =>
  (render: (r: R, viewer: V) => Promise<Response>) =>
  async (c: Context) => {
    const r = await requestOf(c);
    const viewer = await viewerOf(r);
    if (!viewer) return c.redirect('/console/sign-in', 303);
    return render(r, viewer);
  };
