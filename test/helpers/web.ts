/**
 * Sources for import tests and benchmarks (served by test/helpers/file-server.ts): HTML pages, and documents built
 * in memory (a .docx from the minimal OOXML parts, zip archives) with fflate.
 */
import { zipSync, strToU8, type Zippable } from 'fflate';

/** An HTML page with a site header and navigation around `main`. */
export function htmlPage(title: string, main: string, nav: string[] = []): string {
  const links = nav.map((href) => `<li><a href="${href}">${href}</a></li>`).join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title} | Acme</title></head><body>
<header><a href="/">Acme</a></header><nav><ul>${links}</ul></nav>
<main>${main}</main>
<footer>Copyright Acme</footer><script>console.log('x')</script></body></html>`;
}

/** A zip archive of `files` (path -> content); a path may carry unix attributes (a symbolic link). */
export function zipOf(files: Record<string, string | Buffer | { content: string; symlink: true }>): Buffer {
  const zippable: Zippable = {};
  for (const [path, content] of Object.entries(files)) {
    if (typeof content === 'object' && !Buffer.isBuffer(content)) {
      zippable[path] = [strToU8(content.content), { os: 3, attrs: (0o120777 << 16) >>> 0 }];
    } else {
      zippable[path] = typeof content === 'string' ? strToU8(content) : new Uint8Array(content);
    }
  }
  return Buffer.from(zipSync(zippable));
}

export const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** The parts of a .docx around its document.xml: content types, and the package's relationship to the document. */
export const DOCX_CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
export const DOCX_PACKAGE_RELATIONSHIPS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;

/**
 * A real .docx (the minimal OOXML parts Word and mammoth need): a Heading 1 title, a paragraph with bold text and a
 * hyperlink, a table, and an embedded PNG image.
 */
export function docxOf(options: { title: string; paragraph: string; bold: string; link: { text: string; href: string }; table: string[][]; image: Buffer }): Buffer {
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const run = (text: string, bold = false) => `<w:r>${bold ? '<w:rPr><w:b/></w:rPr>' : ''}<w:t xml:space="preserve">${escape(text)}</w:t></w:r>`;
  const rows = options.table
    .map((row) => `<w:tr>${row.map((cell) => `<w:tc><w:p>${run(cell)}</w:p></w:tc>`).join('')}</w:tr>`)
    .join('');
  const document = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="${W}" xmlns:r="${R}" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">
<w:body>
<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr>${run(options.title)}</w:p>
<w:p>${run(options.paragraph)}${run(options.bold, true)}<w:hyperlink r:id="rIdLink">${run(options.link.text)}</w:hyperlink></w:p>
<w:tbl>${rows}</w:tbl>
<w:p><w:r><w:drawing><wp:inline><wp:extent cx="952500" cy="952500"/><wp:docPr id="1" name="Picture 1" descr="Chart"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="1" name="chart.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:embed="rIdImage"/></pic:blipFill><pic:spPr/></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>
</w:body></w:document>`;
  return Buffer.from(
    zipSync({
      '[Content_Types].xml': strToU8(DOCX_CONTENT_TYPES),
      '_rels/.rels': strToU8(DOCX_PACKAGE_RELATIONSHIPS),
      'word/document.xml': strToU8(document),
      'word/_rels/document.xml.rels': strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rIdImage" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/image1.png"/><Relationship Id="rIdLink" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="${escape(options.link.href)}" TargetMode="External"/></Relationships>`),
      'word/media/image1.png': new Uint8Array(options.image),
    }),
  );
}
