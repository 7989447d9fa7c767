/**
 * A PDF of pages: each page starts on a new sheet with its title, description and its markdown as text (headings
 * larger, code in a fixed-width font). Plain but real: text is selectable and searchable in any reader.
 */
import PDFDocument from 'pdfkit';
import type { DocumentPage, Page } from './model.js';

export interface PdfOptions {
  /** Document title (PDF metadata). */
  title: string;
  /** false keeps page streams readable (tests). */
  compress?: boolean;
}

function documentPages(pages: Page[]): DocumentPage[] {
  return pages.flatMap((page) => [...(page.type === 'document' ? [page] : []), ...documentPages(page.pages)]);
}

export function renderPdf(pages: Page[], options: PdfOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ compress: options.compress ?? true, info: { Title: options.title, Producer: 'Quire' }, autoFirstPage: false });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    const list = documentPages(pages);
    if (list.length === 0) doc.addPage().font('Helvetica').fontSize(12).text('(no pages)');
    for (const page of list) {
      doc.addPage();
      doc.font('Helvetica-Bold').fontSize(22).text(page.title || 'Untitled');
      if (page.description) doc.moveDown(0.3).font('Helvetica-Oblique').fontSize(12).text(page.description);
      doc.moveDown();
      let inCode = false;
      for (const line of page.markdown.split('\n')) {
        if (line.startsWith('```')) {
          inCode = !inCode;
          continue;
        }
        const heading = /^(#{1,6})\s+(.*)$/.exec(line);
        if (inCode) doc.font('Courier').fontSize(10).text(line || ' ');
        else if (heading) doc.moveDown(0.5).font('Helvetica-Bold').fontSize(Math.max(12, 20 - heading[1].length * 2)).text(heading[2]);
        else if (line.trim() === '') doc.moveDown(0.5);
        else doc.font('Helvetica').fontSize(11).text(line);
      }
    }
    doc.end();
  });
}
