import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The language data the checkers load (NLTK's English Punkt parameters and stop-word list), read
 * from this folder of the repository so that compiled code in any output directory finds it.
 */
function dataDir(): string {
  let dir = __dirname;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'rubrics', 'data');
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`rubrics/data: no package.json above ${__dirname}`);
    dir = parent;
  }
}

export function readDataFile(name: string): string {
  return readFileSync(join(dataDir(), name), 'utf8');
}

export interface PunktParametersJson {
  abbrev_types: string[];
  collocations: Array<[string, string]>;
  sent_starters: string[];
  ortho_context: Record<string, number>;
}

let punkt: PunktParametersJson | undefined;
let stopwords: ReadonlySet<string> | undefined;

export function punktParameters(): PunktParametersJson {
  punkt ??= JSON.parse(readDataFile('punkt-english.json')) as PunktParametersJson;
  return punkt;
}

/** NLTK's English stop words (198), as the IFBench checkers use them. */
export function stopwordSet(): ReadonlySet<string> {
  stopwords ??= new Set(
    readDataFile('stopwords-english.txt')
      .split('\n')
      .map((w) => w.trim())
      .filter((w) => w !== ''),
  );
  return stopwords;
}
