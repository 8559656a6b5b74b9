import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ORDER_STATUSES, type OrderStatus } from '../../db/schema';
import { listTravelOrders, type OrderFilter, type OrderRow } from '../../domain/orders';
import { validation } from '../../domain/errors';
import { attachment, toCsv } from '../../domain/reports/csv';
import type { ApiDeps } from '../deps';
import { calendarDate } from '../vocabulary';
import { ok, type PartnerEnv } from './router';
import { renderTravelOrder } from './schemas';
import { PageQuery, parsePage, renderPage } from './paging';

/** The most orders one CSV export holds: past it, the filters must narrow the list. */
export const MAX_CSV_ORDERS = 5_000;

/** The extension filters of the travel orders list and of its CSV export (docs/decisions/consoles.md). */
export const OrderFilterQuery = z.object({
  status: z
    .string()
    .superRefine((v, ctx) => {
      const wrong = v.split(',').filter((s) => !(ORDER_STATUSES as readonly string[]).includes(s));
      if (wrong.length > 0) ctx.addIssue({ code: 'custom', message: `must be one or more of ${ORDER_STATUSES.join(', ')}, comma-separated` });
    })
    .optional()
    .openapi({
      param: { name: 'status', in: 'query' },
      example: 'completed,processing',
      description: `Extension: only orders in one of these statuses, comma-separated (${ORDER_STATUSES.join(', ')})`,
    }),
  travel_from: calendarDate('filter')
    .optional()
    .openapi({
      param: { name: 'travel_from', in: 'query' },
      description:
        'Extension: only orders whose service starts on or after this day (UTC): a hotel’s check-in, a flight’s departure. Other services have no such day and are left out',
    }),
  travel_to: calendarDate('filter')
    .optional()
    .openapi({
      param: { name: 'travel_to', in: 'query' },
      description: 'Extension: only orders whose service starts on or before this day (UTC); as travel_from',
    }),
  agent: z
    .string()
    .regex(/^[1-9]\d{0,8}$/, 'must be a user id (a positive integer)')
    .optional()
    .openapi({
      param: { name: 'agent', in: 'query' },
      example: '12',
      description: 'Extension: only orders made by this user of the agency (GET /partners/users/)',
    }),
});
type OrderFilterParams = z.infer<typeof OrderFilterQuery>;

/** The travel orders list's query: its page and the filters. */
export const OrderListQuery = PageQuery.extend(OrderFilterQuery.shape);

/** The export's answer in the published document: a CSV file. */
export const orderExportAnswer = () => ({
  description: `Every travel order the filters select (at most ${MAX_CSV_ORDERS}), newest first, as a CSV file`,
  content: {
    'text/csv': { schema: z.string().openapi({ description: `A header row, then one row per order: ${ORDER_CSV_HEADER.join(', ')}` }) },
  },
});

export const ORDER_CSV_HEADER = ['order_id', 'service', 'status', 'total_price', 'currency', 'supplier_ref', 'created_at', 'completed_at', 'made_by'] as const;

const filterOf = (q: OrderFilterParams): OrderFilter => {
  if (q.travel_from && q.travel_to && q.travel_to < q.travel_from) throw validation('travel_to', 'must not be before travel_from');
  return {
    statuses: q.status ? (q.status.split(',') as OrderStatus[]) : undefined,
    travelFrom: q.travel_from,
    travelTo: q.travel_to,
    agent: q.agent ? Number(q.agent) : undefined,
  };
};

const csvRow = (o: OrderRow) => {
  const v = renderTravelOrder(o);
  return [v.id, v.service, v.status, v.total_price, v.currency, v.supplier_ref, v.created_at, v.completed_at, v.created_by?.name ?? null];
};

/** `GET /partners/orders/`: a page of the partner's travel orders the filters select. */
export async function answerOrderList(c: Context<PartnerEnv>, deps: ApiDeps, q: OrderFilterParams & { page?: string }) {
  const partner = c.get('partner');
  const found = await listTravelOrders(deps.db, partner.id, parsePage(q.page), partner.principal.ownBookingsOf, filterOf(q));
  return ok(c, renderPage(found, c.req.url, renderTravelOrder));
}

/** `GET /partners/orders/export/`: every travel order the filters select, as CSV. */
export async function answerOrderExport(c: Context<PartnerEnv>, deps: ApiDeps, q: OrderFilterParams) {
  const partner = c.get('partner');
  const filter = filterOf(q);
  const first = await listTravelOrders(deps.db, partner.id, 1, partner.principal.ownBookingsOf, filter);
  if (first.total > MAX_CSV_ORDERS) throw validation('status', `the filters select ${first.total} orders; a CSV holds at most ${MAX_CSV_ORDERS}: narrow them`);
  // Keyed by id: an order made while the pages are read shifts them, and would repeat a row.
  const rows = new Map(first.items.map((o) => [o.id, o]));
  for (let p = 2; p <= first.totalPages; p++) {
    for (const o of (await listTravelOrders(deps.db, partner.id, p, partner.principal.ownBookingsOf, filter)).items) rows.set(o.id, o);
  }
  const csv = toCsv(ORDER_CSV_HEADER, [...rows.values()].map(csvRow));
  return c.body(csv, 200, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': attachment(`orders-${partner.id}.csv`) });
}
