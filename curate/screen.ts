import { CodeIndex, type CodeForm, type CodeMatch } from './code-index';
import { PhraseIndex, type BenchmarkSpec, type PhraseMatch } from './phrase-index';

/** What a decontamination screen is built from: plain data, so it can be sent to worker threads. */
export type ScreenSpec =
  | { form: 'words'; benchmarks: BenchmarkSpec[]; threshold: number }
  | { form: 'code'; benchmarks: Array<Omit<BenchmarkSpec, 'sampling'>>; code: CodeForm };

export type ScreenMatch = ({ form: 'words' } & PhraseMatch) | ({ form: 'code' } & CodeMatch);

export interface Screen {
  scan(text: string): ScreenMatch | null;
  /** Per pass: phrases (word form) or distinct n-grams (code form) indexed, and unscreenable items. */
  indexed(): Array<{ entries: number; shortItems: number; emptyItems: number }>;
}

export function buildScreen(spec: ScreenSpec): Screen {
  if (spec.form === 'words') {
    const index = new PhraseIndex(spec.benchmarks, spec.threshold);
    return {
      scan: (text) => {
        const m = index.scan(text);
        return m && { form: 'words', ...m };
      },
      indexed: () => index.phrasesPerPass().map((entries, pass) => ({ entries, shortItems: index.shortItems[pass]!, emptyItems: index.emptyItems[pass]! })),
    };
  }
  const index = new CodeIndex(spec.benchmarks, spec.code);
  return {
    scan: (text) => {
      const m = index.scan(text);
      return m && { form: 'code', ...m };
    },
    indexed: () => index.gramsPerPass().map((entries, pass) => ({ entries, shortItems: index.shortItems[pass]!, emptyItems: index.emptyItems[pass]! })),
  };
}
