/**
 * The report page: one renderer per kind of input, shared by `verdict report` (data embedded in the
 * file) and the playground (a file the user opens). Results files are told by their shape; JSON
 * reports by their `kind`, looked up in RENDERERS.
 */
namespace Verdict {
  type Renderer = (report: Row) => Node;

  /** The report kinds and the versions this build reads, put into the bundle by web/page.ts from web/report-kinds.ts. */
  export declare const REPORT_KINDS: Readonly<Record<string, readonly number[]>>;

  /** One renderer per report kind of REPORT_KINDS. */
  const RENDERERS: Record<string, Renderer> = {
    'verdict.diff': (r) => renderDiff(r),
    'verdict.curate': (r) => renderCurate(r),
    'verdict.audit': (r) => renderAudit(r),
  };

  const section = (title: string, ...children: Array<Node | null>) => h('section', { 'aria-label': title }, h('h2', {}, title), ...children);

  /** Renders whatever `parseReportText` made of a file into `root`; an error shows as an alert. */
  export function renderParsed(parsed: Parsed, root: HTMLElement, source: string): void {
    root.replaceChildren();
    if (!parsed.ok) return void root.appendChild(h('p', { role: 'alert', class: 'error' }, `${source}: ${parsed.error}`));
    if ('rows' in parsed) return void root.appendChild(renderResults(parsed.rows, source));
    const versions = REPORT_KINDS[parsed.kind];
    const render = RENDERERS[parsed.kind];
    if (!versions || !render) {
      return void root.appendChild(h('p', { role: 'alert', class: 'error' }, `${source}: unknown report kind "${parsed.kind}" (known: ${Object.keys(REPORT_KINDS).join(', ')}, or a results file)`));
    }
    const version = parsed.report['version'];
    if (typeof version !== 'number' || !versions.includes(version)) {
      return void root.appendChild(h('p', { role: 'alert', class: 'error' }, `${source}: ${parsed.kind} version ${String(version)} is not one this page reads (${versions.join(', ')})`));
    }
    root.appendChild(render(parsed.report));
  }

  const json = (value: unknown) => JSON.stringify(value, null, 2);

  /**
   * One result opened: its response (when `verdict report --input` joined it) with the extracted
   * answer marked, as the playground shows it, then the result itself.
   */
  function resultDetail(row: Row): Node {
    const { response, ...result } = row;
    const details = (row['details'] ?? {}) as Row;
    return h(
      'div',
      {},
      h('h3', {}, `${String(row['id'] ?? '')} — ${statusOf(row)} ${String(row['reason'] ?? '')}`),
      typeof response === 'string'
        ? h('div', { class: 'response-view' }, h('h4', {}, typeof details['extracted'] === 'string' ? 'Response (the extracted answer marked)' : 'Response'), highlighted(response, details['extracted']))
        : null,
      h('pre', { class: 'json' }, json(result)),
    );
  }

  export function renderResults(rows: readonly Row[], source: string): HTMLElement {
    const a = aggregate(rows);
    const root = h('div', { class: 'report', 'data-kind': 'results' });
    root.appendChild(h('h1', {}, `Results: ${source}`));
    const statusNames = ['OK', 'INVALID', 'ABORTED', ...Object.keys(a.statuses).filter((s) => !['OK', 'INVALID', 'ABORTED'].includes(s))];
    root.appendChild(
      section(
        'Status counts',
        h('p', { class: 'totals', 'data-total': a.total }, `${a.total} results`),
        table(
          'Results by verifier and status',
          ['verifier', 'results', 'OK', 'INVALID', 'ABORTED', 'mean reward (OK)'],
          a.verifiers.map((v) => [v.verifier || '(none)', v.total, v.ok, v.invalid, v.aborted, fmt(v.ok ? v.rewardSum / v.ok : null)]),
        ),
        h('ul', { class: 'statuses' }, ...statusNames.map((s) => h('li', { 'data-status': s }, `${s}: `, h('strong', {}, a.statuses[s] ?? 0), ` (${pct(a.statuses[s] ?? 0, a.total)})`))),
      ),
    );
    const bars = (hist: Histogram, mark: boolean) => hist.counts.map((value, k) => ({ label: hist.labels[k]!, value, marked: mark && hist.unit && inWindowBin(k) }));
    root.appendChild(section('Reward histograms', h('div', { class: 'charts' }, ...a.verifiers.map((v) => barChart(`${v.verifier || '(none)'}: rewards of ${v.ok} OK results`, bars(v.histogram, false))))));
    const measured = a.verifiers.filter((v) => v.lengths !== null);
    root.appendChild(
      section(
        'Response lengths',
        measured.length === 0
          ? h('p', { class: 'note' }, 'No result carries its response or a response length: give verdict report --input DATASET (the file the results were scored from), or keep a responseTokens column.')
          : h(
              'div',
              { class: 'charts' },
              ...measured.map((v) => {
                const l = v.lengths!;
                return barChart(
                  `${v.verifier || '(none)'}: response length in ${l.unit} of ${l.count} results`,
                  l.histogram.counts.map((value, k) => ({ label: l.histogram.labels[k]!, value })),
                  `mean ${fmt(l.mean)} ${l.unit}; passed (reward 1) ${fmt(l.meanPassed)}, others ${fmt(l.meanFailed)}.`,
                );
              }),
            ),
      ),
    );
    root.appendChild(
      section(
        'Group pass rates',
        a.groups.count === 0
          ? h('p', { class: 'note' }, 'No groups: results carry no group_id column and no rollouts of one prompt.')
          : h(
              'div',
              { class: 'charts' },
              barChart(
                `Pass rate (mean reward) of ${a.groups.count} groups`,
                bars(a.groups.histogram, true),
                `${a.groups.inWindow} groups (${pct(a.groups.inWindow, a.groups.count)}) in the dynamic-sampling window (${WINDOW.low}, ${WINDOW.high}] (marked), ${a.groups.allZero} all 0, ${a.groups.allOne} all 1.`,
              ),
              h(
                'div',
                { class: 'group-spread', 'data-no-spread': a.groups.noSpread },
                barChart(
                  `Reward spread (standard deviation) within each of ${a.groups.count} groups`,
                  bars(a.groups.spread, false),
                  `${a.groups.noSpread} groups (${pct(a.groups.noSpread, a.groups.count)}) with every reward equal: no GRPO advantage.`,
                ),
              ),
            ),
      ),
    );
    root.appendChild(
      section(
        'Reasons of results that did not pass',
        a.reasons.length === 0 ? h('p', {}, 'Every result passed.') : table('Reasons, most frequent first', ['status', 'reason', 'count'], a.reasons.slice(0, 50).map((r) => [r.status, r.reason, r.count])),
      ),
    );
    root.appendChild(
      section(
        'Latency',
        a.latency === null
          ? h('p', { class: 'note', 'data-latency': 'none' }, 'These results carry no latency: verdict score writes no timing into result rows (the same input must give the same bytes); its summary prints seconds per verifier. A latency_ms (or seconds) column passed through from the input is shown here.')
          : h(
              'div',
              {},
              table('Latency percentiles (ms)', ['results timed', 'p50', 'p90', 'p99', 'max'], [[a.latency.count, fmt(a.latency.p50, 1), fmt(a.latency.p90, 1), fmt(a.latency.p99, 1), fmt(a.latency.max, 1)]]),
              table('Slowest results', ['id', 'verifier', 'status', 'ms'], a.latency.slowest.map((i) => [String(rows[i]!['id'] ?? ''), String(rows[i]!['verifier'] ?? ''), statusOf(rows[i]!), fmt(latencyOf(rows[i]!), 1)])),
            ),
      ),
    );
    const t = a.truncation;
    root.appendChild(
      section(
        'Truncation',
        h(
          'p',
          { 'data-truncated': t.truncated },
          t.known === 0
            ? 'No result says whether its response was truncated (a truncated or finish_reason column, or the same in metadata).'
            : `${t.truncated} of ${t.known} results truncated (${pct(t.truncated, t.known)}); mean reward truncated ${fmt(t.truncatedRewardMean)}, others ${fmt(t.otherRewardMean)}.`,
        ),
      ),
    );
    root.appendChild(section('Results that did not pass', failureTable(rows, a.failures)));
    return root;
  }

  function failureTable(rows: readonly Row[], failures: readonly number[]): HTMLElement {
    const columns: Column[] = [
      { title: 'id', width: '2fr', cell: (r) => String(r['id'] ?? '') },
      { title: 'verifier', width: '1fr', cell: (r) => String(r['verifier'] ?? '') },
      { title: 'status', width: '1fr', cell: (r) => statusOf(r) },
      { title: 'reward', width: '0.7fr', cell: (r) => fmt(rewardOf(r)) },
      { title: 'reason', width: '3fr', cell: (r) => String(r['reason'] ?? '') },
    ];
    const vt = virtualTable('Results that did not pass', rows, columns, resultDetail);
    const statuses = [...new Set(failures.map((i) => statusOf(rows[i]!)))].sort();
    const verifiers = [...new Set(failures.map((i) => String(rows[i]!['verifier'] ?? '')))].sort();
    const text = h('input', { id: 'filter-text', type: 'search', placeholder: 'id or reason contains…' });
    const status = h('select', { id: 'filter-status' }, h('option', { value: '' }, 'all'), ...statuses.map((s) => h('option', { value: s }, s)));
    const verifier = h('select', { id: 'filter-verifier' }, h('option', { value: '' }, 'all'), ...verifiers.map((v) => h('option', { value: v }, v || '(none)')));
    // Lower-cased search text per failure, built once, so a keystroke filters 100k rows without re-reading them.
    const haystack = failures.map((i) => `${String(rows[i]!['id'] ?? '')}\u0000${String(rows[i]!['reason'] ?? '')}`.toLowerCase());
    const apply = () => {
      const needle = text.value.toLowerCase();
      const out: number[] = [];
      failures.forEach((i, k) => {
        const row = rows[i]!;
        if (status.value !== '' && statusOf(row) !== status.value) return;
        if (verifier.value !== '' && String(row['verifier'] ?? '') !== verifier.value) return;
        if (needle !== '' && !haystack[k]!.includes(needle)) return;
        out.push(i);
      });
      vt.show(out);
    };
    text.addEventListener('input', apply);
    status.addEventListener('change', apply);
    verifier.addEventListener('change', apply);
    apply();
    return h(
      'div',
      {},
      h(
        'div',
        { class: 'filters', role: 'search' },
        h('label', { for: 'filter-text' }, 'Search ', text),
        h('label', { for: 'filter-status' }, 'Status ', status),
        h('label', { for: 'filter-verifier' }, 'Verifier ', verifier),
      ),
      vt.element,
    );
  }

  function renderDiff(report: Row): HTMLElement {
    const verifiers = (Array.isArray(report['verifiers']) ? report['verifiers'] : []) as Row[];
    const changed = (Array.isArray(report['changed']) ? report['changed'] : []) as Row[];
    const files = (report['files'] ?? null) as Row | null;
    const oldName = files ? String(files['old']) : 'OLD';
    const newName = files ? String(files['new']) : 'NEW';
    const root = h('div', { class: 'report', 'data-kind': 'verdict.diff' }, h('h1', {}, files ? `Diff: ${oldName} → ${newName}` : 'Diff of two results files'));
    const flipped = verifiers.filter((v) => (num(v['flipsUp']) ?? 0) + (num(v['flipsDown']) ?? 0) > 0);
    root.appendChild(
      section(
        'Flips per verifier',
        h('p', { class: 'totals', 'data-changed': num(report['totalChanged']) ?? 0 }, `${fmt(num(report['totalChanged']))} results changed; rows only in ${oldName}: ${fmt(num(report['onlyOld']))}, only in ${newName}: ${fmt(num(report['onlyNew']))}`),
        table(
          'Per verifier',
          ['verifier', 'compared', 'rewards changed', '0→1', '1→0', 'mean before', 'mean after', 'status changes', 'causes'],
          verifiers.map((v) => [
            String(v['verifier'] || '(none)'),
            fmt(num(v['compared'])),
            fmt(num(v['rewardChanged'])),
            fmt(num(v['flipsUp'])),
            fmt(num(v['flipsDown'])),
            fmt(num(v['meanBefore']), 4),
            fmt(num(v['meanAfter']), 4),
            Object.entries((v['statusChanges'] ?? {}) as Record<string, number>).map(([k, n]) => `${n} ${k}`).join(', ') || 'none',
            Object.entries((v['causes'] ?? {}) as Record<string, number>).map(([k, n]) => `${n} ${k}`).join(', ') || '–',
          ]),
        ),
        // Only verifiers whose rewards flipped: an empty chart says nothing, and says it in overlapping labels.
        flipped.length === 0
          ? h('p', { class: 'note no-flips' }, 'No reward flipped between 0 and 1.')
          : barChart('Flips per verifier (0→1 and 1→0)', flipped.flatMap((v) => [
              { label: `${String(v['verifier'])} ↑`, value: num(v['flipsUp']) ?? 0 },
              { label: `${String(v['verifier'])} ↓`, value: num(v['flipsDown']) ?? 0, marked: true },
            ])),
      ),
    );
    root.appendChild(
      section(
        `Changed samples (${changed.length} shown)`,
        ...changed.map((c) =>
          h(
            'article',
            { class: 'side-by-side' },
            h('h3', {}, `line ${String(c['line'])}${c['rollout'] === null || c['rollout'] === undefined ? '' : ` rollout ${String(c['rollout'])}`} — cause ${String(c['cause'])}`),
            changeTable(c['old'], c['new'], oldName, newName),
            h('div', { class: 'pair' }, h('div', {}, h('h4', {}, oldName), h('pre', { class: 'json' }, json(c['old']))), h('div', {}, h('h4', {}, newName), h('pre', { class: 'json' }, json(c['new'])))),
          ),
        ),
      ),
    );
    return root;
  }

  /** Status, reward, reason and verifier version of the two results side by side, what differs marked. */
  function changeTable(before: unknown, after: unknown, oldName: string, newName: string): HTMLElement {
    const a = (before ?? {}) as Row;
    const b = (after ?? {}) as Row;
    const fields = ['status', 'reward', 'reason', 'verifierVersion'];
    const show = (x: unknown) => (x === undefined ? '–' : typeof x === 'string' ? x : JSON.stringify(x));
    return h(
      'table',
      { class: 'changes' },
      h('thead', {}, h('tr', {}, h('th', {}, 'field'), h('th', {}, oldName), h('th', {}, newName))),
      h(
        'tbody',
        {},
        ...fields.map((f) => {
          const differs = JSON.stringify(a[f]) !== JSON.stringify(b[f]);
          const cell = (x: unknown) => h('td', {}, differs ? h('mark', {}, show(x)) : show(x));
          return h('tr', { class: differs ? 'changed' : 'same', 'data-field': f }, h('th', {}, f), cell(a[f]), cell(b[f]));
        }),
      ),
    );
  }

  const num = (x: unknown): number | null => (typeof x === 'number' ? x : null);
  const rows = (x: unknown): Row[] => (Array.isArray(x) ? (x as Row[]) : []);

  /** `verdict curate … --summary-json`: decontam passes, learnability decisions and histogram, dedup clusters. */
  function renderCurate(report: Row): HTMLElement {
    const command = String(report['command']);
    const root = h('div', { class: 'report', 'data-kind': 'verdict.curate', 'data-command': command }, h('h1', {}, `verdict curate ${command}`));
    if (command === 'decontam') {
      const passes = rows(report['passes']);
      root.appendChild(
        section(
          'Chained passes',
          h('p', { class: 'totals' }, `${fmt(num(report['samples']))} samples screened (${String(report['form'])} form): kept ${fmt(num(report['kept']))}, removed ${fmt(num(report['removed']))}`),
          table('Removed per benchmark, in chain order', ['pass', 'benchmark', 'items', 'indexed', 'short items', 'empty items', 'removed'], passes.map((p, k) => [k + 1, String(p['benchmark']), fmt(num(p['items'])), fmt(num(p['indexed'])), fmt(num(p['shortItems'])), fmt(num(p['emptyItems'])), fmt(num(p['removed']))])),
          barChart('Samples removed per pass', passes.map((p) => ({ label: String(p['benchmark']), value: num(p['removed']) ?? 0 }))),
        ),
      );
      root.appendChild(
        section(
          'Items that removed the most samples (review these by hand)',
          table(
            'Top items',
            ['benchmark', 'item', 'removed', 'most frequent phrases'],
            passes.flatMap((p) => rows(p['topItems']).map((t) => [String(p['benchmark']), String(t['itemId']), fmt(num(t['removed'])), rows(t['phrases']).map((ph) => `"${String(ph['phrase'])}" ×${String(ph['samples'])}`).join('; ')])),
          ),
        ),
      );
    } else if (command === 'dense') {
      const benchmarks = rows(report['benchmarks']);
      const embedding = (report['embedding'] ?? {}) as Row;
      const options = (report['options'] ?? {}) as Row;
      root.appendChild(
        section(
          'Dense retrieval',
          h('p', { class: 'totals' }, `${fmt(num(report['samples']))} samples searched (${String(options['search'])}, k ${String(options['k'])}, cosine threshold ${String(options['threshold'])}); embeddings ${String(embedding['model'])}, ${fmt(num(embedding['dimensions']))} dimensions: ${fmt(num(embedding['embedded']))} embedded, ${fmt(num(embedding['cached']))} from the cache`),
          table('Pairs per benchmark', ['benchmark', 'items', 'at or above threshold', 'pairs shown', 'also 8-gram', 'contaminated', 'benign', 'undecided'], benchmarks.map((b) => [String(b['benchmark']), fmt(num(b['items'])), fmt(num(b['aboveThreshold'])), fmt(num(b['pairs'])), fmt(num(b['ngramFlagged'])), fmt(num(b['contaminated'])), fmt(num(b['benign'])), fmt(num(b['undecided']))])),
          report['decisions'] ? h('p', { class: 'note' }, `Decisions applied: dropped ${fmt(num(report['dropped']))} samples, kept ${fmt(num(report['kept']))}.`) : null,
        ),
      );
      root.appendChild(renderReview(rows(report['pairs'])));
    } else if (command === 'learnability') {
      const histogram = rows(report['histogram']);
      const samples = (report['samples'] ?? {}) as Row;
      root.appendChild(
        section(
          'Prompts',
          h('p', { class: 'totals' }, `${fmt(num(report['prompts']))} prompts, mode ${String(report['mode'])}: kept ${fmt(num(report['kept']))}, dropped ${fmt(num(report['dropped']))}, undecided ${fmt(num(report['undecided']))} (samples: ${fmt(num(samples['ok']))} OK, ${fmt(num(samples['aborted']))} ABORTED, ${fmt(num(samples['invalid']))} INVALID)`),
          barChart('Pass rate over OK samples', histogram.map((b) => ({ label: String(b['bin']), value: num(b['prompts']) ?? 0 }))),
          table('Reasons', ['reason', 'prompts'], Object.entries((report['reasons'] ?? {}) as Record<string, number>).map(([r, n]) => [r, n])),
        ),
      );
    } else {
      root.appendChild(
        section(
          'Duplicates',
          h('p', { class: 'totals' }, `${fmt(num(report['rows']))} rows: kept ${fmt(num(report['kept']))}, removed ${fmt(num(report['removed']))} in ${fmt(num(report['clusters']))} clusters`),
          table('Largest clusters', ['key', 'first line', 'copies'], rows(report['largest']).map((c) => [String(c['key']).slice(0, 16), fmt(num(c['firstLine'])), fmt(num(c['size']))])),
        ),
      );
    }
    return root;
  }

  /** `verdict audit -o`: gameability per verifier, each hack's hit rate, and the responses that got through. */
  function renderAudit(report: Row): HTMLElement {
    const verifiers = Object.entries((report['verifiers'] ?? {}) as Record<string, Row>);
    const findings = rows(report['findings']);
    const root = h('div', { class: 'report', 'data-kind': 'verdict.audit' }, h('h1', {}, 'Reward-hack audit'));
    root.appendChild(
      section(
        'Gameability',
        h('p', { class: 'totals', 'data-gameable': num(report['gameable']) ?? 0 }, `${fmt(num(report['audited']))} of ${fmt(num(report['labels']))} labels audited: ${fmt(num(report['gameable']))} gameable (gameability ${fmt(num(report['gameability']))})`),
        table('Per verifier', ['verifier', 'audited', 'gameable', 'not auditable', 'gameability'], verifiers.map(([name, v]) => [name, fmt(num(v['audited'])), fmt(num(v['gameable'])), fmt(num(v['unauditable'])), fmt(num(v['gameability']))])),
        table(
          'Hacks that hit',
          ['verifier', 'hack', 'labels tried', 'hits', 'hit rate'],
          verifiers.flatMap(([name, v]) =>
            Object.entries((v['hacks'] ?? {}) as Record<string, Row>)
              .filter(([, x]) => (num(x['hits']) ?? 0) > 0)
              .map(([hack, x]) => [name, hack, fmt(num(x['tried'])), fmt(num(x['hits'])), fmt(num(x['hitRate']), 2)]),
          ),
        ),
      ),
    );
    root.appendChild(
      section(
        `Findings (${findings.length})`,
        table(
          'Each response that got through, beside the label it got through',
          ['where', 'verifier', 'hack', 'how', 'result', 'label', 'response'],
          findings.map((f) => [
            `${String(f['input'])}:${String(f['line'])} ${String(f['id'])}`,
            String(f['verifier']),
            String(f['hack']),
            String(f['how']),
            `${String(f['status'])} ${String(f['reason'])}`,
            // Reports of earlier builds have no label.
            f['label'] === undefined ? '–' : h('pre', { class: 'label' }, String(f['label'])),
            h('pre', {}, String(f['response'])),
          ]),
        ),
      ),
    );
    return root;
  }
}
