import { JSDOM } from 'jsdom';
import fs from 'node:fs';
const dom = new JSDOM('<!doctype html><html><body></body></html>', { pretendToBeVisual: true });
globalThis.window = dom.window; globalThis.document = dom.window.document;
for (const k of ['DOMParser','Element','HTMLElement','Node','navigator']) { try { globalThis[k] = dom.window[k]; } catch {} }
const { default: mermaid } = await import('mermaid');
const { marked } = await import('marked');
mermaid.initialize({ startOnLoad: false });
let failed = 0;
for (const file of process.argv.slice(2)) {
  const md = fs.readFileSync(file, 'utf8');
  const tokens = marked.lexer(md);
  const walk = async (toks) => {
    for (const t of toks) {
      if (t.type === 'code' && t.lang === 'mermaid') {
        try { await mermaid.parse(t.text); console.log(`ok mermaid ${file}`); }
        catch (e) { failed++; console.log(`FAIL mermaid ${file}: ${e.message}`); }
      }
      if (t.type === 'table') {
        for (const row of t.rows) if (row.length !== t.header.length) { failed++; console.log(`FAIL table ${file}: row of ${row.length} cells under ${t.header.length} headers`); }
      }
    }
  };
  await walk(tokens);
  // No log content may become a link: a report written from hostile logs
  // renders as GitHub-flavoured Markdown without any <a>.
  if (file.includes('hostile')) {
    const html = marked.parse(md, { gfm: true });
    const links = (html.match(/<a\s/g) || []).length;
    if (links) { failed++; console.log(`FAIL links ${file}: ${links} <a> in the rendered report`); }
    else console.log(`ok no links ${file}`);
  }
}
process.exit(failed ? 1 : 0);
