import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { notFound } from '@/lib/errors';
import { errorResponse } from '@/lib/http/errors';

// validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io.
// The rest makes the page pass axe-core with no rule turned off (issue 26, e2e/api-docs.spec.ts):
// - deepLinking off: it puts a link inside each operation's toggle button (a control in a control,
//   "nested-interactive"; the link was not reachable by keyboard anyway);
// - syntax highlighting off: its dark theme's numbers (#d36363 on #333) are too faint to read;
// - what Swagger UI renders without a name or in the wrong order is mended as it renders: the
//   server picker gets a label, each operation's responses table (a live region) a name of its
//   own, scrolling examples a keyboard stop, the document's title and the server picker (outside
//   Swagger UI's own <main>) a named region each, and the headings under the document's <h1> are
//   announced one level up (Swagger UI skips from h1 to h3).
const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: false,
  syntaxHighlight: { activated: false },
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
function mend(root) {
  for (const el of root.querySelectorAll('select#servers:not([aria-label])')) el.setAttribute('aria-label', 'Server');
  for (const el of root.querySelectorAll('table.responses-table:not([aria-label])')) {
    const op = el.closest('.opblock');
    const method = op && op.querySelector('.opblock-summary-method');
    const path = op && op.querySelector('.opblock-summary-path');
    el.setAttribute('aria-label', 'Responses of ' + (method ? method.textContent + ' ' : '') + (path ? path.getAttribute('data-path') : el.id));
  }
  for (const el of root.querySelectorAll('pre:not([tabindex])')) el.setAttribute('tabindex', '0');
  for (const [selector, name] of [['.information-container', 'About this API'], ['.scheme-container', 'Servers and authorization']]) {
    for (const el of root.querySelectorAll(selector + ':not([role])')) {
      el.setAttribute('role', 'region');
      el.setAttribute('aria-label', name);
    }
  }
  for (const el of root.querySelectorAll('h3:not([aria-level]), h4:not([aria-level]), h5:not([aria-level]), h6:not([aria-level])')) el.setAttribute('aria-level', String(Number(el.tagName[1]) - 1));
}
const root = document.getElementById('swagger-ui');
new MutationObserver(() => mend(root)).observe(root, { childList: true, subtree: true });
mend(root);
`;

// Swagger UI's colours that are too faint against their background (axe-core "color-contrast",
// WCAG AA 4.5:1): the method badges, the version stamp, the document's URL, Authorize, muted text.
const A11Y_CSS = `.swagger-ui .opblock.opblock-get .opblock-summary-method, .swagger-ui .opblock.opblock-get .tab-header .tab-item.active h4 span:after { background: #1d6fc9; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #0f7a4d; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #c62828; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #b35900; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0b7a6a; }
.swagger-ui .btn.execute { background-color: #1d6fc9; border-color: #1d6fc9; }
.swagger-ui .info .title small.version-stamp { background-color: #4d6b02; }
.swagger-ui .info .title small { background-color: #555555; }
.swagger-ui .info a, .swagger-ui .info .base-url, .swagger-ui .info .url { color: #1d6fc9; }
.swagger-ui .btn.authorize { color: #0f7a4d; border-color: #0f7a4d; }
.swagger-ui .btn.authorize svg { fill: #0f7a4d; }
.swagger-ui .json-schema-2020-12-expand-deep-button, .swagger-ui .json-schema-2020-12__attribute--muted { color: #595959; }
`;

/** The only files served, from the swagger-ui-dist package (the server runs from the project directory). */
const FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

export async function GET(_req: Request, { params }: { params: Promise<{ asset: string }> }) {
  const { asset } = await params;
  if (asset === 'init.js') return new Response(INIT, { headers: { 'content-type': 'text/javascript; charset=utf-8' } });
  if (asset === 'a11y.css') return new Response(A11Y_CSS, { headers: { 'content-type': 'text/css; charset=utf-8' } });
  const type = FILES[asset];
  if (!type) return errorResponse(notFound('Not found.'));
  const body = await readFile(path.join(process.cwd(), 'node_modules', 'swagger-ui-dist', asset));
  return new Response(new Uint8Array(body), { headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' } });
}
