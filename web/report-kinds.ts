/**
 * The JSON report kinds Verdict writes, with the versions this build reads: the one list. `verdict
 * report` refuses other kinds before writing a page; the page gets it as `Verdict.REPORT_KINDS`
 * (web/page.ts injects it into the bundle) and has one renderer per kind (web/client/report.ts).
 */
export const REPORT_KINDS: Readonly<Record<string, readonly number[]>> = {
  'verdict.diff': [1],
  'verdict.curate': [1],
  'verdict.audit': [1],
};
