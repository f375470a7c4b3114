/**
 * DOM building and the charts: text always goes in as text nodes, never as HTML, because results,
 * reasons and responses are untrusted (a response may hold `<script>`), and the playground keeps a
 * bearer token in sessionStorage that an injected script could read.
 *
 * Charts are hand-drawn SVG bars: the reports need only histograms and bar counts, a few dozen
 * lines, where a charting library would be the largest part of every report file.
 */
namespace Verdict {
  export type Child = Node | string | number | null | undefined | false;

  export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | number | boolean> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === false) continue;
      // Through the CSSOM: the pages' Content-Security-Policy refuses style attributes.
      if (k === 'style') el.style.cssText = String(v);
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    append(el, children);
    return el;
  }

  export function append(el: Node, children: Child[]): void {
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    }
  }

  /** A response with its extracted answer (its last occurrence) marked: the playground's result and the report's failures. */
  export function highlighted(response: string, extracted: unknown): HTMLElement {
    const pre = h('pre', { class: 'response', 'aria-label': 'response' });
    const at = typeof extracted === 'string' && extracted !== '' ? response.lastIndexOf(extracted) : -1;
    if (at < 0) append(pre, [response]);
    else append(pre, [response.slice(0, at), h('mark', { title: 'the extracted answer' }, extracted as string), response.slice(at + (extracted as string).length)]);
    return pre;
  }

  const SVG = 'http://www.w3.org/2000/svg';

  function s(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    if (text !== undefined) el.textContent = text;
    return el;
  }

  export interface Bar {
    label: string;
    value: number;
    /** Drawn in the highlight colour (the dynamic-sampling window). */
    marked?: boolean;
  }

  /**
   * A bar chart as SVG with a text alternative: the figure's title names it, and a visually hidden
   * table holds the numbers for screen readers.
   */
  export function barChart(title: string, bars: readonly Bar[], note?: string): HTMLElement {
    const width = 36 * bars.length + 40;
    const height = 150;
    const top = Math.max(1, ...bars.map((b) => b.value));
    const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': `${title}: ${bars.map((b) => `${b.label} ${b.value}`).join(', ')}` });
    bars.forEach((b, i) => {
      const barHeight = b.value === 0 ? 0 : Math.max(2, (b.value / top) * 100);
      const x = 30 + i * 36;
      svg.appendChild(s('rect', { x, y: 115 - barHeight, width: 30, height: barHeight, class: b.marked ? 'bar marked' : 'bar' }));
      svg.appendChild(s('text', { x: x + 15, y: 110 - barHeight, 'text-anchor': 'middle', class: 'count' }, String(b.value)));
      svg.appendChild(s('text', { x: x + 15, y: 132, 'text-anchor': 'middle', class: 'tick' }, b.label));
    });
    svg.appendChild(s('line', { x1: 28, y1: 115, x2: width - 8, y2: 115, class: 'axis' }));
    const table = h('table', { class: 'sr-only' }, h('caption', {}, title), ...bars.map((b) => h('tr', {}, h('th', { scope: 'row' }, b.label), h('td', {}, b.value))));
    return h('figure', { class: 'chart' }, h('figcaption', {}, title), svg as unknown as Node, note ? h('p', { class: 'note' }, note) : null, table);
  }

  export function table(caption: string, head: readonly string[], rows: ReadonlyArray<readonly Child[]>): HTMLTableElement {
    return h(
      'table',
      {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...head.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, c))))),
    );
  }

  export const fmt = (x: number | null, digits = 3): string => (x === null ? '–' : Number.isInteger(x) ? String(x) : x.toFixed(digits));
  export const pct = (part: number, whole: number): string => (whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)}%`);
}
