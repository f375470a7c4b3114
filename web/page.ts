import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPORT_KINDS } from './report-kinds';

/**
 * The two HTML pages, each one self-contained file: the browser scripts of web/client (compiled by
 * `npm run build` into dist/web/client) and the styles inlined, and a Content-Security-Policy that
 * allows exactly those inline blocks by hash and no network at all (the playground: its own origin
 * only), so neither page can load anything from elsewhere, nor run a script a result smuggled in.
 */

/** In dependency order: each file adds to the `Verdict` namespace the next ones use. */
const SCRIPTS = ['model.js', 'dom.js', 'table.js', 'review.js', 'report.js', 'playground.js', 'boot.js'];

export class AssetsMissing extends Error {}

let bundle: string | null = null;

/** The compiled browser scripts, read once per process. */
function scripts(): string {
  if (bundle !== null) return bundle;
  const dir = join(__dirname, 'client');
  const missing = SCRIPTS.filter((f) => !existsSync(join(dir, f)));
  if (missing.length > 0) throw new AssetsMissing(`the page's scripts are not built (${missing.join(', ')} missing in ${dir}): run npm run build`);
  // The report kinds first: the scripts' renderers are looked up by them (web/report-kinds.ts).
  const kinds = `var Verdict; (function (V) { V.REPORT_KINDS = ${JSON.stringify(REPORT_KINDS)}; })(Verdict || (Verdict = {}));`;
  bundle = [kinds, ...SCRIPTS.map((f) => readFileSync(join(dir, f), 'utf8').replace(/^\/\/# sourceMappingURL=.*$/m, ''))].join('\n');
  return bundle;
}

const STYLES = `
:root { color-scheme: light; --fg: #1a1a1a; --muted: #4a4a4a; --line: #c8c8c8; --bar: #2b5d8a; --mark: #a14f00; --bad: #b00020; --good: #1e6b2f; --bg2: #f3f5f7; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: #fff; margin: 0 auto; padding: 1rem 1.5rem; max-width: 1200px; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; } h3 { font-size: 1rem; }
:focus-visible { outline: 3px solid #0b57d0; outline-offset: 2px; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
table { border-collapse: collapse; margin: .5rem 0 1rem; } caption { text-align: left; font-weight: 600; padding: .2rem 0; }
th, td { border: 1px solid var(--line); padding: .25rem .5rem; text-align: left; vertical-align: top; }
thead th { background: var(--bg2); }
.charts { display: flex; flex-wrap: wrap; gap: 1rem; } .chart { margin: 0; } figcaption { font-weight: 600; }
.bar { fill: var(--bar); } .bar.marked { fill: var(--mark); } .axis { stroke: var(--muted); }
.count, .tick { font-size: 10px; fill: var(--fg); }
.note, .help { color: var(--muted); margin: .2rem 0; } .error, .field-error { color: var(--bad); font-weight: 600; }
.field-error:empty { display: none; }
.field { margin: .6rem 0; display: flex; flex-direction: column; gap: .2rem; } label { font-weight: 600; }
fieldset { border: 1px solid var(--line); padding: .5rem .8rem; }
input, select, textarea, button { font: inherit; color: inherit; }
input[type=text], input[type=number], input[type=password], input[type=search], textarea, select { border: 1px solid #767676; border-radius: 3px; padding: .25rem .4rem; }
textarea { width: 100%; } .code, pre { font-family: ui-monospace, monospace; font-size: 13px; }
[aria-invalid=true] { border-color: var(--bad); border-width: 2px; }
button { background: #0b57d0; color: #fff; border: 0; border-radius: 3px; padding: .35rem .9rem; cursor: pointer; } button:disabled { background: #767676; }
#use-example { background: #fff; color: #0b57d0; border: 1px solid #0b57d0; }
.columns { display: grid; grid-template-columns: 1fr 1fr; gap: 1.5rem; align-items: start; } .columns > section:last-child { position: sticky; top: 0; max-height: 100vh; overflow: auto; } @media (max-width: 900px) { .columns { grid-template-columns: 1fr; } }
pre { background: var(--bg2); padding: .5rem; overflow: auto; max-height: 24rem; white-space: pre-wrap; word-break: break-word; }
mark { background: #ffe08a; color: #000; font-weight: 700; }
.result { border: 1px solid var(--line); border-left: 6px solid var(--muted); padding: .5rem .8rem; margin: .5rem 0; }
.status-OK { border-left-color: var(--good); } .status-INVALID, .status-ABORTED { border-left-color: var(--bad); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .8rem; } dt { font-weight: 600; } dd { margin: 0; }
.verdict-pass { color: var(--good); font-weight: 700; } .verdict-fail { color: var(--bad); font-weight: 700; } .verdict-skip { color: var(--muted); }
.filters { display: flex; gap: 1rem; flex-wrap: wrap; margin: .5rem 0; }
.vt { border: 1px solid var(--line); } .vt-viewport { overflow-y: auto; position: relative; }
.vt-spacer { width: 1px; } .vt-body { position: absolute; top: 0; left: 0; right: 0; }
.vt-row { display: grid; height: 28px; align-items: center; border-bottom: 1px solid #e4e4e4; cursor: pointer; }
.vt-row > div { padding: 0 .4rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.vt-head { background: var(--bg2); font-weight: 600; cursor: default; } .vt-row.selected { background: #dbe7fb; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: .8rem; } .review-pair { border: 1px solid var(--line); border-left: 6px solid var(--muted); padding: .5rem .8rem; margin: .8rem 0; } .review-pair[data-decision=contaminated] { border-left-color: var(--bad); } .review-pair[data-decision=benign] { border-left-color: var(--good); } .decision label { font-weight: 400; margin-right: 1rem; } .statuses { list-style: none; padding: 0; display: flex; gap: 1.5rem; }
`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

interface Page {
  html: string;
  /** The Content-Security-Policy of the page (also in its <meta>, so a saved file keeps it). */
  policy: string;
}

function page(title: string, boot: string, extraHead: string, connect: string): Page {
  const script = `${scripts()}\n${boot}`;
  if (/<\/script/i.test(script)) throw new Error('a page script holds "</script", which would end its element early');
  const policy = `default-src 'none'; script-src ${sha256(script)}; style-src ${sha256(STYLES)}; img-src data:; connect-src ${connect}; form-action 'none'; base-uri 'none'`;
  const html = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title}</title>`,
    `<style>${STYLES}</style>`,
    extraHead,
    '</head><body><main id="app"><p>Loading…</p></main>',
    `<script>${script}</script>`,
    '</body></html>',
  ].join('\n');
  return { html, policy };
}

/** What a report page shows: a results file's rows, or a JSON report of some kind. */
export type ReportData = { kind: 'results'; rows: unknown[] } | { kind: string; report: unknown };

/** JSON inside a <script> element: `<` escaped, so no value can end the element or open a comment. */
const embedded = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** One self-contained HTML report: no request leaves the page (connect-src 'none'). */
export function reportPage(source: string, data: ReportData): string {
  const parsed = { ok: true, ...data };
  const json = `<script type="application/json" id="verdict-data">${embedded({ source, parsed })}</script>`;
  return page(`Verdict report: ${escapeHtml(source)}`, 'Verdict.bootReport();', json, "'none'").html;
}

let playground: Page | null = null;

/** The playground, built once: it talks to its own origin only. */
export function playgroundPage(): Page {
  playground ??= page('Verdict playground', 'Verdict.bootPlayground();', '', "'self'");
  return playground;
}
