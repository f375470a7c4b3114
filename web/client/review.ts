/**
 * The review of `verdict curate dense` candidates, inside the curate report: each pair side by side
 * with the runs of words both texts share marked, a decision per pair (contaminated or benign), and
 * an export of the decisions as JSON Lines that `verdict curate dense --decisions FILE` applies. The
 * page sends nothing anywhere (its policy forbids it): the file is the record of who decided what.
 */
namespace Verdict {
  type Decision = 'contaminated' | 'benign';

  interface State {
    decision: Decision | null;
    reviewer: string | null;
    decidedAt: string | null;
    note: string;
  }

  /** Pairs shown at once; "Show more" adds as many. */
  const PAGE = 200;

  /** The text with each [start, end) span in a <mark>; spans come sorted and apart from the command. */
  function marked(text: string, spans: unknown): HTMLElement {
    const pre = h('pre', { class: 'review-text' });
    let at = 0;
    for (const span of Array.isArray(spans) ? spans : []) {
      const [start, end] = span as [number, number];
      if (typeof start !== 'number' || typeof end !== 'number' || start < at || end > text.length || end <= start) continue;
      append(pre, [text.slice(at, start), h('mark', {}, text.slice(start, end))]);
      at = end;
    }
    append(pre, [text.slice(at)]);
    return pre;
  }

  const ngramText = (p: Row) => {
    const n = (p['ngram'] ?? {}) as Row;
    const flags = [n['sampled'] === true ? 'sampled' : '', n['exhaustive'] === true ? 'exhaustive' : ''].filter((s) => s !== '');
    return flags.length === 0 ? 'not flagged by the 8-gram screens' : `8-gram: ${flags.join(' and ')}`;
  };

  /** One pair side by side, with its decision and note; a change of decision updates `state`, then calls `changed`. */
  function pairArticle(p: Row, i: number, state: State, changed: () => void): HTMLElement {
    const where = `line ${String(p['line'])}${p['id'] === null || p['id'] === undefined ? '' : ` (${String(p['id'])})`}`;
    const radios = (['contaminated', 'benign'] as const).map((value) => {
      const input = h('input', { type: 'radio', name: `decision-${i}`, value, id: `decision-${i}-${value}`, checked: state.decision === value });
      input.addEventListener('change', () => {
        state.decision = value;
        state.reviewer = null;
        state.decidedAt = new Date().toISOString();
        article.setAttribute('data-decision', value);
        changed();
      });
      return h('label', { for: `decision-${i}-${value}` }, input, ` ${value}`);
    });
    const note = h('input', { type: 'text', id: `note-${i}`, value: state.note, class: 'review-note' });
    note.addEventListener('input', () => (state.note = note.value));
    const spans = (p['spans'] ?? {}) as Row;
    const article = h(
      'article',
      { class: 'review-pair', 'data-pair': i, 'data-decision': state.decision ?? 'undecided', 'aria-labelledby': `pair-${i}` },
      h('h3', { id: `pair-${i}` }, `${String(p['benchmark'])} ${String(p['itemId'])} ↔ ${where}: cosine ${fmt(typeof p['similarity'] === 'number' ? p['similarity'] : null, 4)}`),
      h('p', { class: 'note' }, `${ngramText(p)}; shown as ${(Array.isArray(p['reasons']) ? p['reasons'] : []).map((r) => (r === 'threshold' ? 'at or above the threshold' : "one of the item's nearest samples")).join(' and ')}`),
      h(
        'div',
        { class: 'pair' },
        h('div', {}, h('h4', {}, `training sample, ${where}`), marked(String(p['sampleText'] ?? ''), spans['sample'])),
        h('div', {}, h('h4', {}, `benchmark item ${String(p['itemId'])}`), marked(String(p['itemText'] ?? ''), spans['item'])),
      ),
      h('fieldset', { class: 'decision' }, h('legend', {}, 'Decision'), ...radios, h('label', { for: `note-${i}` }, ' note ', note)),
    );
    return article;
  }

  /** The decided pairs as JSON Lines, in the form `verdict curate dense --decisions` reads; `reviewer` names new decisions. */
  function decisionsFile(pairs: readonly Row[], states: readonly State[], reviewer: string): string {
    const lines: string[] = [];
    pairs.forEach((p, i) => {
      const s = states[i]!;
      if (s.decision === null) return;
      const decision = {
        benchmark: p['benchmark'],
        itemId: p['itemId'],
        sample: p['sample'],
        decision: s.decision,
        reviewer: s.reviewer ?? reviewer,
        decidedAt: s.decidedAt ?? new Date().toISOString(),
        line: p['line'] ?? null,
        id: p['id'] ?? null,
        similarity: p['similarity'] ?? null,
        note: s.note === '' ? null : s.note,
      };
      lines.push(JSON.stringify(decision) + '\n');
    });
    return lines.join('');
  }

  export function renderReview(pairs: readonly Row[]): HTMLElement {
    const states: State[] = pairs.map((p) => {
      const d = (p['decision'] ?? null) as Row | null;
      const decision = d && (d['decision'] === 'contaminated' || d['decision'] === 'benign') ? (d['decision'] as Decision) : null;
      return { decision, reviewer: d ? String(d['reviewer']) : null, decidedAt: d ? String(d['decidedAt']) : null, note: d && typeof d['note'] === 'string' ? d['note'] : '' };
    });
    const reviewer = h('input', { id: 'reviewer', type: 'text', autocomplete: 'name', 'aria-describedby': 'review-error' });
    const error = h('p', { id: 'review-error', class: 'field-error', role: 'alert' });
    const counts = h('p', { id: 'review-counts', 'aria-live': 'polite' });
    const filter = h('select', { id: 'review-filter' }, ...['all', 'undecided', 'contaminated', 'benign'].map((v) => h('option', { value: v }, v)));
    const exportButton = h('button', { id: 'export-decisions', type: 'button' }, 'Export decisions');
    // Built when first shown, then kept: a review of 30,000 pairs must not build 30,000 articles up front.
    const articles = new Map<number, HTMLElement>();
    const list = h('div', { id: 'review-pairs' });
    const more = h('button', { id: 'review-more', type: 'button' });
    let limit = PAGE;
    const recount = () => {
      const c = states.filter((s) => s.decision === 'contaminated').length;
      const b = states.filter((s) => s.decision === 'benign').length;
      counts.textContent = `${c} contaminated, ${b} benign, ${states.length - c - b} undecided of ${states.length} pairs`;
      counts.setAttribute('data-contaminated', String(c));
      counts.setAttribute('data-benign', String(b));
    };
    const show = () => {
      const wanted = states.map((s, i) => ({ i, d: s.decision ?? 'undecided' })).filter((x) => filter.value === 'all' || filter.value === x.d);
      list.replaceChildren(...wanted.slice(0, limit).map((x) => articles.get(x.i) ?? build(x.i)));
      more.hidden = wanted.length <= limit;
      more.textContent = `Show ${Math.min(PAGE, wanted.length - limit)} more (${wanted.length - limit} not shown)`;
    };
    const build = (i: number): HTMLElement => {
      const article = pairArticle(pairs[i]!, i, states[i]!, recount);
      articles.set(i, article);
      return article;
    };
    filter.addEventListener('change', () => {
      limit = PAGE;
      show();
    });
    more.addEventListener('click', () => {
      limit += PAGE;
      show();
    });
    exportButton.addEventListener('click', () => {
      const name = reviewer.value.trim();
      const fresh = states.some((s) => s.decision !== null && s.reviewer === null);
      if (fresh && name === '') {
        error.textContent = 'Enter your name as reviewer: the decisions file records who decided each pair.';
        reviewer.setAttribute('aria-invalid', 'true');
        reviewer.focus();
        return;
      }
      error.textContent = '';
      reviewer.removeAttribute('aria-invalid');
      const url = URL.createObjectURL(new Blob([decisionsFile(pairs, states, name)], { type: 'application/x-ndjson' }));
      const link = h('a', { href: url, download: 'decisions.jsonl' });
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    });
    recount();
    show();
    return h(
      'section',
      { 'aria-label': 'Review' },
      h('h2', {}, `Review (${pairs.length} pairs)`),
      h('p', { class: 'help' }, 'Mark each pair contaminated or benign, then export the decisions and apply them with verdict curate dense --decisions decisions.jsonl (samples confirmed contaminated are dropped). Marked text: runs of words both sides share.'),
      h('div', { class: 'filters' }, h('label', { for: 'reviewer' }, 'Reviewer ', reviewer), h('label', { for: 'review-filter' }, 'Show ', filter), exportButton),
      error,
      counts,
      list,
      more,
    );
  }
}
