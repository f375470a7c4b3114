import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';

/**
 * `--tokenizer tokenizer.json`: counts a response's tokens with a local Hugging Face tokenizer
 * (@huggingface/tokenizers reads the same tokenizer.json the model ships; nothing is downloaded).
 * A `tokenizer_config.json` beside it is read too, as the library expects. Special tokens are not
 * added: a rollout's length is the tokens the policy generated.
 */
export function loadTokenCounter(file: string): (text: string) => number {
  const read = (name: string): object => {
    try {
      return JSON.parse(readFileSync(name, 'utf8')) as object;
    } catch (error) {
      throw new Error(`--tokenizer: ${name}: ${(error as Error).message}`);
    }
  };
  const json = read(file);
  const configFile = path.join(path.dirname(file), 'tokenizer_config.json');
  const config = existsSync(configFile) ? read(configFile) : {};
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(json, config);
  } catch (error) {
    throw new Error(`--tokenizer: ${file}: not a tokenizer the library can load (${(error as Error).message})`);
  }
  return (text) => tokenizer.encode(text, { add_special_tokens: false }).ids.length;
}
