import type { Registry } from '../core/registry';
import { sectionsRead, type ServiceSection } from '../core/verifier';
import { createRegistry } from '../verifiers';

/** What each section looks like in a config file, for the hints (examples/verdict.yaml has them in full). */
const SECTION_SNIPPET: Readonly<Record<ServiceSection, string>> = {
  sandbox: 'sandbox: {}',
  judge: 'judge: {endpoints: {NAME: {url: …, model: …}}}',
  rewardModel: 'rewardModel: {endpoints: {…}}',
  jsIsolate: 'jsIsolate: {}',
  agentState: 'agentState: {taskDir: DIR}',
  terminal: 'terminal: {taskDir: DIR}',
};

/** The sections examples/verdict.yaml serves on this host (jsIsolate needs no section: it always runs). */
const EXAMPLE_SERVES: ReadonlySet<ServiceSection> = new Set(['sandbox', 'jsIsolate']);

/**
 * For each verifier with ABORTED `service_unavailable` samples: which config sections serve it, as
 * its definition declares them (`requires` and `uses`; `if` needs one only for python, js or judge rubrics).
 */
export function serviceHints(rows: ReadonlyArray<{ verifier: string; status: string; reason: string; count: number }>, registry: Registry = createRegistry()): string[] {
  const hints: string[] = [];
  for (const row of rows) {
    if (row.status !== 'ABORTED' || row.reason !== 'service_unavailable') continue;
    const verifier = registry.get(row.verifier);
    const sections = verifier ? sectionsRead(verifier).filter((s) => s !== 'jsIsolate') : [];
    const section = sections.length > 0 ? sections.map((s) => SECTION_SNIPPET[s]).join(' and ') : 'the section its README names';
    const example = sections.length > 0 && sections.every((s) => EXAMPLE_SERVES.has(s)) ? ', e.g. --config examples/verdict.yaml' : ' (examples/verdict.yaml shows the sections)';
    hints.push(`hint: ${row.count} ${row.verifier} sample${row.count === 1 ? ' was' : 's were'} not scored (ABORTED service_unavailable): give --config FILE with ${section}${example}`);
  }
  return hints;
}
