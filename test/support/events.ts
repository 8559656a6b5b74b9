import type { Reply } from './clients';

type FeedReader = { get: (path: string) => Promise<Reply> };

/**
 * The types of one order's events, oldest first, as its partner reads them in the
 * Interface A feed (`GET /api/partners/events/`), following `next` to the last page.
 */
export async function eventTypesOf(api: FeedReader, orderId: number): Promise<string[]> {
  const types: string[] = [];
  let path: string | null = '/api/partners/events/';
  for (let pages = 0; path !== null; pages++) {
    if (pages > 100) throw new Error('the events feed kept giving a next page');
    const res = await api.get(path);
    if (res.status !== 200) throw new Error(`events feed: ${res.status} ${JSON.stringify(res.body)}`);
    const data = res.body.data as { next: string | null; results: { type: string; order_id: number | null }[] };
    for (const e of data.results) if (e.order_id === orderId) types.push(e.type);
    path = data.next === null ? null : new URL(data.next).pathname + new URL(data.next).search;
  }
  return types;
}

type AdminReader = { get: (path: string) => Promise<Reply> };

/**
 * An order's operator-only events (order.needs_attention) as `admin order inspect` lists
 * them: each park's `needs_attention` (where the workflow parked and why), oldest first.
 */
export async function operatorNotesOf(admin: AdminReader, orderId: number): Promise<unknown[]> {
  const { body } = await admin.get(`/admin/orders/${orderId}`);
  return (body.events as { operator_only?: boolean; needs_attention?: unknown }[]).filter((e) => e.operator_only).map((e) => e.needs_attention);
}
