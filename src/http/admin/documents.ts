/**
 * Operators' view of a partner's finance documents: the month's invoices and credit notes,
 * the same the partner lists (GET /api/partners/invoices/), as JSON or the summary's PDF.
 */
import type { Hono } from 'hono';
import type { Db } from '../../db/client';
import { summaryContent } from '../../domain/documents/catalogue';
import { monthlySummary } from '../../domain/documents/finance';
import { issuerOf, type DocumentSettings } from '../../domain/documents/issuer';
import { validation } from '../../domain/errors';
import { requirePartner } from '../../domain/partners';
import { attachment } from '../../domain/reports/csv';
import { documentPdf } from '../document-pdf';
import { renderInvoiceSummary } from '../partner/documents.routes';
import type { RequestIdVariables } from '../request-id';
import type { OperatorVariables } from './actions';
import { idParam } from './input';

type AdminEnv = { Variables: RequestIdVariables & OperatorVariables };

export function documentAdminRoutes(app: Hono<AdminEnv>, deps: { db: Db; documents: DocumentSettings }): void {
  app.get('/admin/partners/:id/invoices', async (c) => {
    const id = idParam(c, 'partner');
    const month = c.req.query('month');
    const format = c.req.query('format') ?? 'json';
    if (month === undefined) throw validation('month', 'is required (YYYY-MM)');
    if (format !== 'json' && format !== 'pdf') throw validation('format', 'must be json or pdf');
    await requirePartner(deps.db, id);
    const summary = await monthlySummary(deps.db, deps.documents, id, month);
    if (format === 'pdf') {
      const issuer = await issuerOf(deps.db, deps.documents, id);
      const file = await documentPdf(summaryContent(summary, issuer.party), null);
      return c.body(new Uint8Array(file), 200, { 'content-type': 'application/pdf', 'content-disposition': attachment(`invoices-${id}-${month}.pdf`) });
    }
    return c.json({ partner_id: id, ...renderInvoiceSummary(summary) });
  });
}
