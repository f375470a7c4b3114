/** Entry points the two pages call from their one inline line (web/page.ts). */
namespace Verdict {
  /** The report file: its data lies in a `<script type="application/json">`, as written by `verdict report`. */
  export function bootReport(): void {
    const root = document.getElementById('app')!;
    const data = JSON.parse(document.getElementById('verdict-data')!.textContent ?? 'null') as { source: string; parsed: Parsed };
    renderParsed(data.parsed, root, data.source);
    root.setAttribute('data-ready', 'true');
  }

  export function bootPlayground(): void {
    startPlayground(document.getElementById('app')!);
  }
}
