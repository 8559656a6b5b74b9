import PDFDocument from 'pdfkit';
import type { Branding, DocumentContent, DocumentTable, Party } from '../domain/documents/model';
import { footEveryPage } from './pdf-footer';
import { pdfBytes } from './pdf-bytes';

const MARGIN = 50;
const CELL_GAP = 4;
const LOGO_BOX = { width: 140, height: 56 };

/**
 * A document (voucher, receipt, invoice, credit note, summary) as a PDF (pdfkit, in the
 * statement's style): a traveller document under the agency's logo, name and legal details;
 * a finance document with its seller and buyer; then its facts, its tables (continued on as
 * many pages as they need, their column titles repeated) and its notes; page numbers last.
 */
export function documentPdf(content: DocumentContent, branding: Branding | null): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: MARGIN, bufferPages: true, info: { Title: `${content.title}, ${content.reference}` } });
  const done = pdfBytes(doc);
  const width = doc.page.width - 2 * MARGIN;

  if (branding) {
    const top = doc.y;
    let textLeft = MARGIN;
    if (branding.logoPng) {
      doc.image(branding.logoPng, MARGIN, top, { fit: [LOGO_BOX.width, LOGO_BOX.height] });
      textLeft = MARGIN + LOGO_BOX.width + 12;
    }
    doc
      .font('Helvetica-Bold')
      .fontSize(12)
      .text(branding.name, textLeft, top, { width: width - (textLeft - MARGIN) });
    doc.font('Helvetica').fontSize(9);
    for (const line of branding.lines) doc.text(line, textLeft, undefined, { width: width - (textLeft - MARGIN) });
    doc.y = Math.max(doc.y, branding.logoPng ? top + LOGO_BOX.height : doc.y) + 12;
  }

  doc.font('Helvetica-Bold').fontSize(16).text(content.title, MARGIN);
  doc.font('Helvetica').fontSize(10).text(content.reference);
  doc.moveDown(0.8);

  if (content.parties) {
    const top = doc.y;
    const half = width / 2 - 10;
    const party = (label: string, p: Party, x: number) => {
      doc.font('Helvetica-Bold').fontSize(9).text(label, x, top, { width: half });
      doc.font('Helvetica-Bold').fontSize(10).text(p.name, x, undefined, { width: half });
      doc.font('Helvetica').fontSize(9);
      for (const line of p.lines) doc.text(line, x, undefined, { width: half });
      return doc.y;
    };
    const bottom = Math.max(party('Seller', content.parties.seller, MARGIN), party('Buyer', content.parties.buyer, MARGIN + half + 20));
    doc.y = bottom + 12;
  }

  doc.fontSize(10);
  for (const [label, value] of content.facts) {
    doc.font('Helvetica-Bold').text(`${label}: `, MARGIN, undefined, { continued: true });
    doc.font('Helvetica').text(value || '-');
  }

  for (const table of content.tables) drawTable(doc, table, width);

  if (content.notes.length) {
    doc.moveDown(1);
    doc.font('Helvetica').fontSize(9);
    for (const note of content.notes) doc.text(note, MARGIN, undefined, { width });
  }

  footEveryPage(doc, MARGIN, (page, count) => `${content.title}, ${content.reference}: page ${page} of ${count}`);
  doc.end();
  return done;
}

function drawTable(doc: PDFKit.PDFDocument, table: DocumentTable, width: number) {
  doc.moveDown(1);
  doc.font('Helvetica-Bold').fontSize(11).text(table.title, MARGIN);
  doc.moveDown(0.3);
  // The first column takes what the others leave: it holds the descriptions and names.
  const rest = table.columns.length > 1 ? Math.min(90, (width * 0.6) / (table.columns.length - 1)) : 0;
  const widths = table.columns.map((_, i) => (i === 0 ? width - rest * (table.columns.length - 1) : rest));
  const right = new Set(table.right ?? []);
  const bottom = () => doc.page.height - MARGIN;
  const row = (cells: readonly string[], bold = false) => {
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(8);
    const height = Math.max(...cells.map((text, i) => doc.heightOfString(text || ' ', { width: widths[i]! - CELL_GAP }))) + 4;
    if (doc.y + height > bottom()) {
      doc.addPage();
      if (!bold) row(table.columns, true);
      doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(8);
    }
    const top = doc.y;
    let x = MARGIN;
    cells.forEach((text, i) => {
      doc.text(text, x, top, { width: widths[i]! - CELL_GAP, align: right.has(i) ? 'right' : 'left' });
      x += widths[i]!;
    });
    doc.y = top + height;
    if (bold) {
      doc
        .moveTo(MARGIN, doc.y - 2)
        .lineTo(MARGIN + width, doc.y - 2)
        .lineWidth(0.5)
        .stroke();
    }
  };
  row(table.columns, true);
  for (const cells of table.rows) row(cells);
  doc.x = MARGIN;
}
