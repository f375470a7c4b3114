import type { JsonObject } from '../core/json';
import type { Sample } from '../core/sample';
import { labelString, questionOf } from './battery';

const sample = (metadata: JsonObject): Sample => ({ id: 's', verifier: 'qa', response: '', label: {}, groupId: '', responseTokens: 0, metadata });

describe('battery helpers', () => {
  it('reads a label field as a string, a number spelt as one, else null', () => {
    expect(labelString({ gold: '7/4' }, 'gold')).toBe('7/4');
    expect(labelString({ gold: 42 }, 'gold')).toBe('42');
    expect(labelString({ gold: 0.5 }, 'gold')).toBe('0.5');
    expect(labelString({ gold: true }, 'gold')).toBeNull();
    expect(labelString({ gold: ['a'] }, 'gold')).toBeNull();
    expect(labelString({}, 'gold')).toBeNull();
  });

  it('finds the question in the last user message with text, else the prompt', () => {
    const messages = [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'an answer' },
      { role: 'user', content: 'the real question' },
      { role: 'assistant', content: 'another' },
    ];
    expect(questionOf(sample({ messages, prompt: 'ignored' }))).toBe('the real question');
    // A user message whose content is not a string (parts) is passed over.
    expect(questionOf(sample({ messages: [{ role: 'user', content: 'text' }, { role: 'user', content: [{ type: 'text', text: 'x' }] }] }))).toBe('text');
    expect(questionOf(sample({ messages: [{ role: 'system', content: 'x' }], prompt: 'the prompt' }))).toBe('the prompt');
    expect(questionOf(sample({ prompt: 'the prompt' }))).toBe('the prompt');
    expect(questionOf(sample({ messages: 'not a list', prompt: 42 }))).toBeNull();
    expect(questionOf(sample({}))).toBeNull();
  });
});
