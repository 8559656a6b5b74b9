/**
 * Operators' view of a partner's finance documents: the month's invoices and credit notes,
 * the same the partner lists (GET /api/partners/invoices/), as JSON or the summary's PDF.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Db } from '../../db/client';
import { summaryContent } from '../../domain/documents/catalogue';
import { monthlySummary } from '../../domain/documents/finance';
import { issuerOf, type DocumentSettings } from '../../domain/documents/issuer';
import { validation } from '../../domain/errors';
import { requirePartner } from '../../domain/partners';
import { attachment } from '../../domain/reports/csv';
import { documentPdf } from '../document-pdf';
import { InvoiceSummary, renderInvoiceSummary } from '../partner/documents.routes';
import { idParam } from './input';
import { adminOperations, adminRouter } from './router';
import { file, idPath, notFoundResponse } from './schemas';

const route = createRoute({
  ...adminOperations(['Partners']).get('/admin/partners/{id}/invoices', "A partner's invoices and credit notes for a month"),
  request: {
    params: z.object({ id: idPath('partner') }),
    query: z.object({
      month: z.string().optional().openapi({ description: 'The month (YYYY-MM); required', example: '2026-12' }),
      format: z
        .string()
        .optional()
        .openapi({ enum: ['json', 'pdf'], description: 'json (the default) or pdf (the summary)' }),
    }),
  },
  responses: {
    200: {
      description: "The month's documents",
      content: {
        'application/json': { schema: InvoiceSummary.extend({ partner_id: z.number().int() }) },
        'application/pdf': file('application/pdf', '').content['application/pdf'],
      },
    },
    ...notFoundResponse,
  },
});

export function documentAdminRoutes(deps: { db: Db; documents: DocumentSettings }) {
  return adminRouter().openapi(route, async (c) => {
    const id = idParam(c, 'partner');
    const month = c.req.query('month');
    const format = c.req.query('format') ?? 'json';
    if (month === undefined) throw validation('month', 'is required (YYYY-MM)');
    if (format !== 'json' && format !== 'pdf') throw validation('format', 'must be json or pdf');
    await requirePartner(deps.db, id);
    const summary = await monthlySummary(deps.db, deps.documents, id, month);
    if (format === 'pdf') {
      const issuer = await issuerOf(deps.db, deps.documents, id);
      const pdf = await documentPdf(summaryContent(summary, issuer.party), null);
      return c.body(new Uint8Array(pdf), 200, { 'content-type': 'application/pdf', 'content-disposition': attachment(`invoices-${id}-${month}.pdf`) });
    }
    return c.json({ partner_id: id, ...renderInvoiceSummary(summary) }, 200);
  });
}
