import PDFDocument from 'pdfkit';
import { formatDecimal } from '../../domain/money/money';
import { dayText, type Statement } from '../../domain/money/statements';
import { footEveryPage } from '../pdf-footer';
import { pdfBytes } from '../pdf-bytes';

const MARGIN = 50;
const TABLE_FONT_SIZE = 8;
/** The movements' table: each column's title, width (points) and alignment; the widths fill an A4 page inside its margins. */
const COLUMNS = [
  { title: 'Date', width: 58, align: 'left' },
  { title: 'Entry', width: 38, align: 'left' },
  { title: 'Description', width: 189, align: 'left' },
  { title: 'Debit', width: 70, align: 'right' },
  { title: 'Credit', width: 70, align: 'right' },
  { title: 'Balance', width: 70, align: 'right' },
] as const;
const CELL_GAP = 4;

/**
 * The statement as a PDF (pdfkit): a header with the partner, the period, the currency, the
 * opening and closing balances and the credit limit; then the movements in a table that
 * continues on as many pages as it needs, its column titles repeated on each; page numbers last.
 */
export function statementPdf(s: Statement): Promise<Buffer> {
  const money = (minor: number) => formatDecimal(minor, s.currency);
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    info: { Title: `Statement ${s.partnerName} ${s.period.from} to ${s.period.to}` },
  });
  const done = pdfBytes(doc);

  doc.font('Helvetica-Bold').fontSize(16).text('Statement of account');
  doc.moveDown(0.5);
  doc.font('Helvetica').fontSize(10);
  const facts: Array<[string, string]> = [
    ['Partner', `${s.partnerName} (partner ${s.partnerId})`],
    ['Period', `${dayText(s.period.from)} to ${dayText(s.period.to)} (${s.period.from} to ${s.period.to}, UTC)`],
    ['Currency', s.currency],
    ['Opening balance', money(s.openingBalance)],
    ['Total debits', money(s.totalDebits)],
    ['Total credits', money(s.totalCredits)],
    ['Closing balance', money(s.closingBalance)],
    ['Credit limit', money(s.creditLimit)],
  ];
  for (const [label, value] of facts) {
    doc.font('Helvetica-Bold').text(`${label}: `, { continued: true });
    doc.font('Helvetica').text(value);
  }
  doc.moveDown(1);

  const bottom = () => doc.page.height - MARGIN;
  const row = (cells: readonly string[], bold = false) => {
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(TABLE_FONT_SIZE);
    const height = Math.max(...cells.map((text, i) => doc.heightOfString(text, { width: COLUMNS[i]!.width - CELL_GAP }))) + 4;
    if (doc.y + height > bottom()) {
      doc.addPage();
      if (!bold)
        row(
          COLUMNS.map((c) => c.title),
          true,
        );
      doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(TABLE_FONT_SIZE);
    }
    const top = doc.y;
    let x = MARGIN;
    cells.forEach((text, i) => {
      const col = COLUMNS[i]!;
      doc.text(text, x, top, { width: col.width - CELL_GAP, align: col.align });
      x += col.width;
    });
    doc.y = top + height;
    if (bold) {
      doc
        .moveTo(MARGIN, doc.y - 2)
        .lineTo(doc.page.width - MARGIN, doc.y - 2)
        .lineWidth(0.5)
        .stroke();
    }
  };

  row(
    COLUMNS.map((c) => c.title),
    true,
  );
  row([s.period.from, '', 'Opening balance', '', '', money(s.openingBalance)]);
  for (const l of s.lines) {
    const amount = money(l.amount);
    row([
      l.at.toISOString().slice(0, 10),
      String(l.entryId),
      // Who moved it, where an agency's person or connection did: a finance team reads who paid.
      l.actor && (l.actor.type === 'user' || l.actor.type === 'connection') ? `${l.description} (by ${l.actor.name})` : l.description,
      l.direction === 'debit' ? amount : '',
      l.direction === 'credit' ? amount : '',
      money(l.balanceAfter),
    ]);
  }
  row([s.period.to, '', 'Closing balance', money(s.totalDebits), money(s.totalCredits), money(s.closingBalance)], true);
  if (s.lines.length === 0) {
    doc.moveDown(1);
    doc.font('Helvetica').fontSize(10).text('No movements in this period.', MARGIN);
  }

  footEveryPage(doc, MARGIN, (page, count) => `${s.partnerName}, ${s.period.from} to ${s.period.to}: page ${page} of ${count}`);
  doc.end();
  return done;
}
