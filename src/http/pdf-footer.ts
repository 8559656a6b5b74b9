/** What the footer writes on: a pdfkit document with its pages buffered (`bufferPages: true`). */
interface PagedDocument {
  bufferedPageRange(): { start: number; count: number };
  switchToPage(n: number): void;
  page: { margins: { bottom: number }; height: number; width: number };
  font(name: string): this;
  fontSize(size: number): this;
  text(text: string, x: number, y: number, options: { width: number; align: 'center'; lineBreak: false }): this;
}

/** Writes `label(page, pages)` centred under the bottom margin of every page, once the whole document is laid out. */
export function footEveryPage(doc: PagedDocument, margin: number, label: (page: number, pages: number) => string): void {
  const pages = doc.bufferedPageRange();
  for (let i = 0; i < pages.count; i++) {
    doc.switchToPage(pages.start + i);
    // Below the bottom margin, where text would otherwise start a new page.
    doc.page.margins.bottom = 0;
    doc
      .font('Helvetica')
      .fontSize(8)
      .text(label(i + 1, pages.count), margin, doc.page.height - margin + 15, { width: doc.page.width - 2 * margin, align: 'center', lineBreak: false });
  }
}
