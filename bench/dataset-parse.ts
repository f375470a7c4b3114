// The baseline of the dataset benchmark, run as its own process: read a JSONL file line by line and
// JSON.parse each line, nothing else — what any tool reading the file must at least do.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

async function main(): Promise<void> {
  let rows = 0;
  for await (const line of createInterface({ input: createReadStream(process.argv[2]!), crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    JSON.parse(line);
    rows++;
  }
  process.stdout.write(`${rows}\n`);
}

void main();
