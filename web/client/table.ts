/**
 * A virtualized table: of 100k rows only the ~20 in view exist in the DOM; the rest is an empty
 * spacer of the full height, so scrolling and filtering stay quick. Keyboard: focus the table,
 * arrows and Page Up/Down move the selection, Home/End jump; the selected row's details show below.
 */
namespace Verdict {
  const ROW_HEIGHT = 28;
  const VIEW_ROWS = 16;

  export interface Column {
    title: string;
    width: string;
    cell(row: Row): string;
  }

  export interface VirtualTable {
    element: HTMLElement;
    /** Shows these rows (indices into the full list); keeps the selection if it is still shown. */
    show(indices: readonly number[]): void;
  }

  export function virtualTable(label: string, rows: readonly Row[], columns: readonly Column[], detail: (row: Row) => Node): VirtualTable {
    let shown: readonly number[] = [];
    let selected = -1;
    const template = columns.map((c) => c.width).join(' ');
    const head = h('div', { class: 'vt-row vt-head', role: 'row', style: `grid-template-columns:${template}` }, ...columns.map((c) => h('div', { role: 'columnheader' }, c.title)));
    const spacer = h('div', { class: 'vt-spacer' });
    const body = h('div', { class: 'vt-body', role: 'rowgroup' });
    const viewport = h('div', { class: 'vt-viewport', tabindex: 0, style: `height:${ROW_HEIGHT * VIEW_ROWS}px` }, spacer, body);
    const grid = h('div', { class: 'vt', role: 'table', 'aria-label': label }, h('div', { role: 'rowgroup' }, head), viewport);
    const count = h('p', { class: 'vt-count', 'aria-live': 'polite' });
    const details = h('section', { class: 'vt-detail', 'aria-label': 'details of the selected row' }, h('p', { class: 'note' }, 'Select a row (click, or focus the table and use the arrow keys) to see its details.'));

    const draw = () => {
      const first = Math.max(0, Math.floor(viewport.scrollTop / ROW_HEIGHT) - 2);
      const last = Math.min(shown.length, first + VIEW_ROWS + 4);
      body.replaceChildren();
      body.style.transform = `translateY(${first * ROW_HEIGHT}px)`;
      for (let i = first; i < last; i++) {
        const row = rows[shown[i]!]!;
        const el = h('div', { class: i === selected ? 'vt-row selected' : 'vt-row', role: 'row', 'aria-rowindex': i + 2, 'aria-selected': i === selected ? 'true' : 'false', 'data-pos': i, style: `grid-template-columns:${template}` });
        for (const c of columns) {
          const text = c.cell(row);
          append(el, [h('div', { role: 'cell', title: text }, text)]);
        }
        body.appendChild(el);
      }
    };
    const select = (pos: number) => {
      if (shown.length === 0) return;
      selected = Math.max(0, Math.min(shown.length - 1, pos));
      const topRow = viewport.scrollTop / ROW_HEIGHT;
      if (selected < topRow) viewport.scrollTop = selected * ROW_HEIGHT;
      else if (selected >= topRow + VIEW_ROWS - 1) viewport.scrollTop = (selected - VIEW_ROWS + 2) * ROW_HEIGHT;
      details.replaceChildren(detail(rows[shown[selected]!]!));
      draw();
    };
    viewport.addEventListener('scroll', draw);
    viewport.addEventListener('click', (event) => {
      const target = (event.target as HTMLElement).closest('[data-pos]');
      if (target) select(Number(target.getAttribute('data-pos')));
    });
    viewport.addEventListener('keydown', (event) => {
      const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: VIEW_ROWS, PageUp: -VIEW_ROWS, Home: -Infinity, End: Infinity };
      const move = moves[event.key];
      if (move === undefined) return;
      event.preventDefault();
      select(selected < 0 ? 0 : move === -Infinity ? 0 : move === Infinity ? shown.length - 1 : selected + move);
    });
    return {
      element: h('div', {}, count, grid, details),
      show(indices) {
        const keep = selected >= 0 ? shown[selected] : undefined;
        shown = indices;
        selected = keep === undefined ? -1 : indices.indexOf(keep);
        grid.setAttribute('aria-rowcount', String(indices.length + 1));
        spacer.style.height = `${indices.length * ROW_HEIGHT}px`;
        count.textContent = `${indices.length} rows`;
        viewport.scrollTop = 0;
        draw();
      },
    };
  }
}
