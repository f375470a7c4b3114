import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { JsonObject } from '../../core/json';
import { parseInterval, type Mode } from '../../curate/learnability';
import { addMappingOptions, addServerOptions, mappingOrThrow, serverTarget, type ServerFlags } from '../dataset-options';
import { FORMATS } from '../dataset/format';
import type { MappingFlags } from '../dataset/mapping';
import { collect, config, fraction, integer, workersOption } from '../options';
import type { ScreenInput } from './decontam';

// Each gate's module is loaded when that gate runs (a dynamic import in its action): the other
// commands, `verdict score` among them, do not load the curation tools at start-up.

/** `verdict curate`: the prompt-set gates of the recipe, beside the verifiers whose verdicts they use. */
export function addCurateCommand(cli: Command): void {
  const curate = cli
    .command('curate')
    .description('prompt-set gates before training: learnability and correctness from verdicts, dedup, benchmark decontamination (8-gram and dense retrieval with review)')
    .addHelpText('after', '\nEach reads and writes JSONL, .jsonl.gz, .jsonl.zst and Parquet (by extension, or --format/--output-format), streams, shows progress on a terminal and prints a summary. See docs/curate.md.');
  addLearnability(curate);
  addDedup(curate);
  addDecontam(curate);
  addDense(curate);
}

const inputOptions = (command: Command) =>
  command
    .addOption(new Option('--format <format>', 'input format instead of the extension\'s').choices(FORMATS))
    .addOption(new Option('--output-format <format>', 'format of -o instead of its extension\'s').choices(FORMATS))
    .option('--summary-json <file>', 'write the summary (a report of kind verdict.curate) as JSON')
    .option('--no-progress', 'no progress line (none is shown unless stderr is a terminal)');

function writeSummary(path: string | undefined, report: JsonObject): void {
  if (path) writeFileSync(path, JSON.stringify(report, null, 2) + '\n');
}

function countRange(value: string): { min: number; max: number } {
  const m = /^(\d+)\.\.(\d+)$/.exec(value);
  if (!m || Number(m[1]) > Number(m[2])) throw new InvalidArgumentError('expected MIN..MAX passes, e.g. 1..3');
  return { min: Number(m[1]), max: Number(m[2]) };
}

function interval(value: string) {
  const parsed = parseInterval(value);
  if (!parsed.ok) throw new InvalidArgumentError(parsed.error);
  return parsed.interval;
}

interface LearnabilityFlags extends MappingFlags, ServerFlags {
  format?: string;
  outputFormat?: string;
  summaryJson?: string;
  progress: boolean;
  key: string;
  mode: 'window' | 'correctness' | 'count' | 'drop-all-pass';
  window: ReturnType<typeof interval>;
  keep?: { min: number; max: number };
  of?: number;
  passReward: number;
  minOk?: number;
  prompts?: string;
  promptsFormat?: string;
  promptKey: string;
  output?: string;
  dropped?: string;
  undecided?: string;
  score?: boolean;
  results?: string;
  workers: number;
  batchSize: number;
}

function addLearnability(curate: Command): void {
  const command = inputOptions(
    curate
      .command('learnability')
      .description('keep prompts by their pass rate over OK samples: the learnability window, correctness, pass counts, drop-all-pass')
      .argument('<in>', 'results of verdict score (or rollouts, with --score)'),
  )
    .option('--key <path>', 'the field of a result that names its prompt', 'groupId')
    .addOption(new Option('--mode <mode>', 'window: pass rate in --window; correctness: any reward > 0 (a teacher\'s rollouts); count: --keep MIN..MAX passes of the first --of OK samples; drop-all-pass: drop prompts every sample passes').choices(['window', 'correctness', 'count', 'drop-all-pass']).default('window'))
    .addOption(new Option('--window <interval>', 'kept pass rates, "(" and ")" leave an end out').argParser(interval).default(interval('(0,0.8]'), '(0,0.8]'))
    .addOption(new Option('--keep <min..max>', 'count mode: passes to keep, e.g. 1..3').argParser(countRange))
    .addOption(new Option('--of <n>', 'count mode: OK samples counted per prompt (the first n)').argParser(integer('--of', 1)))
    .addOption(new Option('--pass-reward <r>', 'a sample passes at reward ≥ r').argParser(fraction('--pass-reward')).default(1))
    .addOption(new Option('--min-ok <n>', 'fewer OK samples make a prompt undecided (default: 4; correctness 1; count --of)').argParser(integer('--min-ok', 1)))
    .option('--prompts <file>', 'the prompt file: its rows are what -o, --dropped and --undecided receive')
    .addOption(new Option('--prompts-format <format>', 'format of --prompts instead of its extension\'s').choices(FORMATS))
    .option('--prompt-key <path>', 'with --prompts: the field of a prompt row holding the prompt id', 'id')
    .option('-o, --output <file>', 'kept prompts (prompt rows untouched with --prompts, else one tally per prompt)')
    .option('--dropped <file>', 'dropped prompts with the reason and tally')
    .option('--undecided <file>', 'prompts with too few OK samples (and, with --prompts, rows no result names)')
    .option('--score', 'the input holds rollouts: score them first (with the mapping and --server flags of verdict score)')
    .option('--results <file>', 'with --score: keep the results here (default: a temporary file)')
    .option('--config <file>', 'with --score: service config (YAML or JSON)')
    .addOption(workersOption())
    .addOption(new Option('--batch-size <n>', 'with --score: samples scored together').argParser(integer('--batch-size', 1)).default(4096));
  // The mapping, --server and --workers flags act only when --score scores the input first: their help says so.
  const before = command.options.length;
  addServerOptions(addMappingOptions(command));
  for (const option of [...command.options.slice(before), ...command.options.filter((o) => o.long === '--workers')]) option.description = `with --score: ${option.description}`;
  command.action(async (input: string, opts: LearnabilityFlags) => {
    const mode: Mode =
      opts.mode === 'window'
        ? { kind: 'window', window: opts.window }
        : opts.mode === 'count'
          ? countMode(opts)
          : { kind: opts.mode };
    if (opts.mode !== 'count' && (opts.keep || opts.of)) throw new Error('--keep and --of: only with --mode count');
    if (!opts.score && opts.results) throw new Error('--results: only with --score');
    const mapping = mappingOrThrow(opts);
    const target = serverTarget(opts);
    const { learnability, renderLearnability } = await import('./learnability');
    const report = await learnability({
      input,
      ...(opts.format ? { format: opts.format } : {}),
      ...(opts.score
        ? { score: { workers: opts.workers, config: config(opts.config), batchSize: opts.batchSize, progress: opts.progress && process.stderr.isTTY === true, mapping, ...(target ?? {}) } }
        : {}),
      ...(opts.results ? { results: opts.results } : {}),
      key: opts.key,
      mode,
      passReward: opts.passReward,
      ...(opts.minOk !== undefined ? { minOk: opts.minOk } : {}),
      ...(opts.prompts ? { prompts: opts.prompts } : {}),
      ...(opts.promptsFormat ? { promptsFormat: opts.promptsFormat } : {}),
      promptKey: opts.promptKey,
      ...(opts.output ? { output: opts.output } : {}),
      ...(opts.outputFormat ? { outputFormat: opts.outputFormat } : {}),
      ...(opts.dropped ? { dropped: opts.dropped } : {}),
      ...(opts.undecided ? { undecided: opts.undecided } : {}),
      progress: opts.progress,
    });
    process.stdout.write(renderLearnability(report) + '\n');
    writeSummary(opts.summaryJson, report);
  });
}

function countMode(opts: LearnabilityFlags): Mode {
  if (!opts.keep || opts.of === undefined) throw new Error('--mode count needs --keep MIN..MAX and --of N (Search Agent: --keep 1..3 --of 8)');
  if (opts.keep.max > opts.of) throw new Error(`--keep ${opts.keep.min}..${opts.keep.max}: more passes than --of ${opts.of} samples`);
  return { kind: 'count', min: opts.keep.min, max: opts.keep.max, of: opts.of };
}

interface DedupFlags {
  format?: string;
  outputFormat?: string;
  summaryJson?: string;
  progress: boolean;
  textField?: string[];
  idField: string;
  output?: string;
  removed?: string;
  clusters?: string;
}

function addDedup(curate: Command): void {
  inputOptions(
    curate
      .command('dedup')
      .description('drop rows whose problem statement repeats an earlier one: SHA-256 of the lower-cased, whitespace-collapsed text; the first copy is kept')
      .argument('<in>', 'dataset file'),
  )
    .option('--text-field <path>', 'the problem statement (repeatable, joined by newlines; default: the row\'s question, problem, prompt, instruction, text, content, messages or conversations field, else every string but the id)', collect)
    .option('--id-field <path>', 'the row id shown in the removed and cluster records (and left out of the default key)', 'id')
    .option('-o, --output <file>', 'kept rows, untouched')
    .option('--removed <file>', 'removed rows, each with the line and id of the copy kept')
    .option('--clusters <file>', 'one record per statement that occurs more than once')
    .action(async (input: string, opts: DedupFlags) => {
      const { dedup, renderDedup } = await import('./dedup');
      const report = await dedup({
        input,
        ...(opts.format ? { format: opts.format } : {}),
        textFields: opts.textField ?? null,
        idField: opts.idField,
        ...(opts.output ? { output: opts.output } : {}),
        ...(opts.outputFormat ? { outputFormat: opts.outputFormat } : {}),
        ...(opts.removed ? { removed: opts.removed } : {}),
        ...(opts.clusters ? { clusters: opts.clusters } : {}),
        progress: opts.progress,
      });
      process.stdout.write(renderDedup(report) + '\n');
      writeSummary(opts.summaryJson, report);
    });
}

/** The flags both benchmark screens take (`screenOptions`). */
interface ScreenFlags {
  format?: string;
  outputFormat?: string;
  summaryJson?: string;
  progress: boolean;
  benchmark?: string[];
  textField?: string[];
  benchmarkField?: string[];
  benchmarkIdField: string;
  idField: string;
  output?: string;
  removed?: string;
}

/** The input, benchmark and field flags of decontam and dense; `screened` says what of a row each reads. */
function screenOptions(command: Command, screened: { text: string; benchmark: string; id: string }): Command {
  return inputOptions(command)
    .option('--benchmark <[name=]path>', 'a benchmark file or folder of files (repeatable, read in order: decontam chains its passes so)', collect)
    .option('--text-field <path>', screened.text, collect)
    .option('--benchmark-field <path>', screened.benchmark, collect)
    .option('--benchmark-id-field <path>', 'the benchmark item id (default: file:line when absent)', 'id')
    .option('--id-field <path>', screened.id, 'id');
}

/** The shared fields of a screen's options, checked: at least one benchmark. */
async function screenInput(input: string, opts: ScreenFlags): Promise<ScreenInput> {
  if (!opts.benchmark || opts.benchmark.length === 0) throw new Error('give at least one --benchmark FILE or FOLDER');
  const { parseBenchmark } = await import('./decontam');
  return {
    input,
    ...(opts.format ? { format: opts.format } : {}),
    benchmarks: opts.benchmark.map(parseBenchmark),
    textFields: opts.textField ?? null,
    benchmarkFields: opts.benchmarkField ?? null,
    benchmarkIdField: opts.benchmarkIdField,
    idField: opts.idField,
    ...(opts.output ? { output: opts.output } : {}),
    ...(opts.outputFormat ? { outputFormat: opts.outputFormat } : {}),
    ...(opts.removed ? { removed: opts.removed } : {}),
    progress: opts.progress,
  };
}

interface DecontamFlags extends ScreenFlags {
  form: 'words' | 'code';
  n: number;
  phrases: number;
  threshold: number;
  exhaustive?: string | true;
  prefixChars: number;
  charN: number;
  minShared: number;
  workers: number;
}

function addDecontam(curate: Command): void {
  screenOptions(
    curate
      .command('decontam')
      .description('remove training samples that contain benchmark text: word 8-gram phrases (chained passes, one read of the data), or the code form (400-character prefix hash, character 60-grams)')
      .argument('<in>', 'training data'),
    {
      text: 'what of a training row is screened (repeatable; default: every string of the row — all turns)',
      benchmark: 'what of a benchmark row is its item text (repeatable; default: its question, problem, prompt, instruction, text, content, messages or conversations field, else every string but the id)',
      id: 'the training row id shown in the removed records',
    },
  )
    .addOption(new Option('--form <form>', 'words: n-gram phrases; code: prefix hash and character n-grams (Coding RL against LiveCodeBench)').choices(['words', 'code']).default('words'))
    .addOption(new Option('--n <words>', 'words per phrase').argParser(integer('--n', 1)).default(8))
    .addOption(new Option('--phrases <k>', 'evenly spaced phrases sampled per item').argParser(integer('--phrases', 1)).default(20))
    .addOption(new Option('--threshold <share>', 'remove a sample once this share of one item\'s phrases occur in it').argParser(fraction('--threshold')).default(0.5))
    .option('--exhaustive [names]', 'every phrase of every item, for these benchmarks (comma-separated; no value: all)')
    .addOption(new Option('--prefix-chars <n>', 'code form: characters of the hashed prefix').argParser(integer('--prefix-chars', 1)).default(400))
    .addOption(new Option('--char-n <n>', 'code form: characters per n-gram').argParser(integer('--char-n', 1)).default(60))
    .addOption(new Option('--min-shared <n>', 'code form: distinct shared n-grams that remove a sample').argParser(integer('--min-shared', 1)).default(5))
    .addOption(workersOption())
    .option('-o, --output <file>', 'kept samples, untouched')
    .option('--removed <file>', 'removed samples with the benchmark, the item id and the phrases that matched (for review)')
    .action(async (input: string, opts: DecontamFlags) => {
      const screen = await screenInput(input, opts);
      if (opts.threshold === 0) throw new Error('--threshold must be above 0 (0 would remove every sample)');
      if (opts.form === 'code' && opts.exhaustive !== undefined) throw new Error('--exhaustive: only with --form words (the code form already takes every n-gram)');
      const { decontam, renderDecontam } = await import('./decontam');
      const report = await decontam({
        ...screen,
        form: opts.form,
        sampling: { n: opts.n, count: opts.phrases },
        exhaustive: opts.exhaustive === undefined ? null : opts.exhaustive === true ? [] : opts.exhaustive.split(',').map((s) => s.trim()).filter((s) => s !== ''),
        threshold: opts.threshold,
        code: { prefixChars: opts.prefixChars, n: opts.charN, minShared: opts.minShared },
        workers: opts.workers,
      });
      process.stdout.write(renderDecontam(report) + '\n');
      writeSummary(opts.summaryJson, report);
    });
}

interface DenseFlags extends ScreenFlags {
  config?: string;
  endpoint: string;
  k: number;
  threshold: number;
  search: 'hnsw' | 'exact';
  n: number;
  phrases: number;
  phraseThreshold: number;
  spanWords: number;
  workers: number;
  chunk: number;
  candidates?: string;
  decisions?: string;
}

function addDense(curate: Command): void {
  screenOptions(
    curate
      .command('dense')
      .description('dense-retrieval contamination candidates: embed training samples and benchmark items (OpenAI-compatible /v1/embeddings, cached), find each sample\'s nearest items, list pairs for review; --decisions applies a review')
      .argument('<in>', 'training data'),
    {
      text: 'what of a training row is embedded (repeatable; default: every string of the row — all turns, as the 8-gram screen reads it)',
      benchmark: 'what of a benchmark row is its item text (repeatable; default as decontam)',
      id: 'the training row id shown in the pairs',
    },
  )
    .option('--config <file>', 'config file whose embeddings: section names the endpoint and the cache (else $VERDICT_EMBEDDINGS_<NAME>_URL and _MODEL)')
    .option('--endpoint <name>', 'the embeddings endpoint to use', 'default')
    .addOption(new Option('--k <n>', 'nearest benchmark items per sample, and nearest samples shown per item').argParser(integer('--k', 1)).default(10))
    .addOption(new Option('--threshold <cosine>', 'pairs at or above this cosine similarity are candidates').argParser(fraction('--threshold')).default(0.85))
    .addOption(new Option('--search <method>', 'exact: usearch\'s brute-force SIMD scan (recall 1; as fast as HNSW at a few thousand items); hnsw: an HNSW graph of the benchmark side, for much larger ones').choices(['exact', 'hnsw']).default('exact'))
    .addOption(new Option('--n <words>', '8-gram flag: words per phrase').argParser(integer('--n', 1)).default(8))
    .addOption(new Option('--phrases <k>', '8-gram flag: sampled phrases per item').argParser(integer('--phrases', 1)).default(20))
    .addOption(new Option('--phrase-threshold <share>', '8-gram flag: share of an item\'s phrases that flags a pair').argParser(fraction('--phrase-threshold')).default(0.5))
    .addOption(new Option('--span-words <n>', 'the review page marks shared runs of at least this many words').argParser(integer('--span-words', 1)).default(4))
    .addOption(new Option('--workers <n>', 'search threads').argParser(integer('--workers', 1)).default(availableParallelism(), 'one per core'))
    .addOption(new Option('--chunk <n>', 'training samples embedded and searched together').argParser(integer('--chunk', 1)).default(4096))
    .option('--candidates <file>', 'every pair shown for review, with both texts, the similarity and the 8-gram flags')
    .option('--decisions <file>', 'a review\'s decisions (JSONL, exported by the review page): drop samples confirmed contaminated')
    .option('-o, --output <file>', 'with --decisions: kept samples, untouched')
    .option('--removed <file>', 'with --decisions: dropped samples with the decisions that dropped them (who, when)')
    .action(async (input: string, opts: DenseFlags) => {
      const screen = await screenInput(input, opts);
      if (!opts.decisions && (opts.output || opts.removed)) throw new Error('-o and --removed: only with --decisions (dense retrieval itself drops nothing: a person decides)');
      const section = config(opts.config).embeddings;
      const [{ resolveEmbeddingsEndpoint }, { dense, renderDense }] = await Promise.all([import('../../services/embeddings'), import('./dense')]);
      const resolved = resolveEmbeddingsEndpoint(section, opts.endpoint, process.env, `${opts.config ?? 'config'}.embeddings`);
      if (!resolved.ok) throw new Error(resolved.errors.join('\n'));
      const report = await dense({
        ...screen,
        endpoint: resolved.endpoint,
        cachePath: section?.cachePath ?? 'verdict-embeddings-cache.sqlite',
        k: opts.k,
        threshold: opts.threshold,
        search: opts.search,
        ngram: { n: opts.n, phrases: opts.phrases, threshold: opts.phraseThreshold },
        spanWords: opts.spanWords,
        workers: opts.workers,
        chunk: opts.chunk,
        ...(opts.candidates ? { candidates: opts.candidates } : {}),
        ...(opts.decisions ? { decisions: opts.decisions } : {}),
      });
      process.stdout.write(renderDense(report) + '\n');
      writeSummary(opts.summaryJson, report);
    });
}
