export interface LengthPenalty {
  /** Length at which the penalty starts (L0). */
  l0: number;
  /** Length at which the penalty reaches its maximum (Lmax > L0). */
  lmax: number;
  /** The largest fraction of a positive score taken away (p_max, in [0, 1]). */
  p_max: number;
}

/** p = p_max × clamp((len − L0) / (Lmax − L0), 0, 1): 0 up to L0, rising linearly to p_max at Lmax. */
export function penaltyFraction(length: number, penalty: LengthPenalty): number {
  const ramp = (length - penalty.l0) / (penalty.lmax - penalty.l0);
  return penalty.p_max * Math.min(1, Math.max(0, ramp));
}

/**
 * The penalized reward: raw × (1 − p) when raw > 0, raw unchanged otherwise. A negative score is
 * not scaled toward 0, which would reward a bad response for being long.
 */
export function penalizedReward(raw: number, p: number): number {
  return raw > 0 ? raw * (1 - p) : raw;
}

/** How the length is counted: the trainer's token count, or a tokenizer-free rule on the text. */
export type LengthCount = 'response_tokens' | 'words' | 'chars';

/** The response length under `count`; `words` are runs of non-whitespace, `chars` are code points. */
export function responseLength(response: string, responseTokens: number, count: LengthCount): number {
  switch (count) {
    case 'response_tokens':
      return responseTokens;
    case 'words':
      return response.match(/\S+/g)?.length ?? 0;
    case 'chars':
      return [...response].length;
  }
}
