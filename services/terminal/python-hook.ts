/**
 * The `.pth` line that runs Verdict's Python start-up hook (python/sitecustomize.py) from the
 * environment interpreter's own site folder, where a test.sh that sets PYTHONPATH itself
 * (`PYTHONPATH=/app pytest …`, dropping the hook's folder) cannot take it away. `site` executes a
 * `.pth` line that starts with `import` while it adds the site folders, before it imports any
 * `sitecustomize` and before the working directory is on sys.path; the first `.pth` to run also
 * comes before the code other `.pth` files import (setuptools' `_distutils_hack`, which a
 * `_distutils_hack.py` on PYTHONPATH would otherwise replace). A hook already imported is not run
 * twice; a hook folder that is gone (a cut-short run's leftover) is skipped quietly.
 */
export function hookPthLine(folder: string): string {
  // A folder of Verdict's own (no quote in it).
  const file = `${folder}/sitecustomize.py`;
  const load = [
    'import importlib.util as u',
    `s = u.spec_from_file_location('sitecustomize', '${file}')`,
    'm = u.module_from_spec(s)',
    "sys.modules['sitecustomize'] = m",
    's.loader.exec_module(m)',
  ].join('\\n');
  return `import os, sys; 'sitecustomize' in sys.modules or not os.path.isfile(${JSON.stringify(file)}) or exec("${load}")\n`;
}
