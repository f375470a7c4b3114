import { checkAgainst } from '../../core/label';
import { conversation, promptMessages, replyFor } from './conversation';

describe('replyFor', () => {
  it('keeps the whole response unless asked to strip the reasoning', () => {
    expect(replyFor('<think>hmm</think> 42', false)).toEqual({ content: '<think>hmm</think> 42', unclosedThink: false });
  });

  it('keeps the answer after the last </think>, without its leading space', () => {
    expect(replyFor('<think>a</think><think>b</think>\n  42 ', true)).toEqual({ content: '42 ', unclosedThink: false });
    expect(replyFor('no reasoning', true)).toEqual({ content: 'no reasoning', unclosedThink: false });
  });

  it('leaves an empty answer, flagged, when a <think> never closes', () => {
    expect(replyFor('<think>out of budget', true)).toEqual({ content: '', unclosedThink: true });
  });
});

describe('conversation', () => {
  it('is the prompt with the reply as the last assistant turn, the prompt untouched', () => {
    const prompt = [{ role: 'user' as const, content: 'hi' }];
    expect(conversation(prompt, { content: 'hello', unclosedThink: false })).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
    expect(prompt).toHaveLength(1);
  });
});

describe('promptMessages', () => {
  it('takes OpenAI chat messages and keeps their extra fields for the template', () => {
    const messages = [{ role: 'assistant', content: '', tool_calls: [{ id: 'c1' }] }, { role: 'tool', content: '3' }];
    expect(checkAgainst(promptMessages, messages, 'metadata.messages')).toEqual({ ok: true, value: messages });
  });

  it('refuses an empty conversation, an unknown role and a content that is not text, naming the field', () => {
    expect(checkAgainst(promptMessages, [], 'metadata.messages')).toMatchObject({ ok: false, error: expect.stringMatching(/^metadata\.messages: /) });
    expect(checkAgainst(promptMessages, [{ role: 'robot', content: 'x' }], 'metadata.messages')).toMatchObject({ ok: false, error: expect.stringMatching(/^metadata\.messages\[0\]\.role: /) });
    expect(checkAgainst(promptMessages, [{ role: 'user', content: 3 }], 'metadata.messages')).toEqual({ ok: false, error: 'metadata.messages[0].content: expected string, received number' });
  });
});
