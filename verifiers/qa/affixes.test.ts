import { touchedAffix } from './affixes';

describe('touchedAffix', () => {
  it('names the prefix an edit falls inside', () => {
    expect(touchedAffix('intracellular', 'intercellular')).toBe('intra-');
    expect(touchedAffix('hypertonic', 'hypotonic')).toBe('hyper-');
  });

  it('names the suffix an edit reaches into', () => {
    expect(touchedAffix('perchlorate', 'perchlorite')).toBe('-ate');
    expect(touchedAffix('cyclohexane', 'cyclohexene')).toBe('-ane');
  });

  it('is null for an edit that touches no meaningful affix (a typo the grader may forgive)', () => {
    expect(touchedAffix('photosynthesis', 'photosynthasis')).toBeNull();
    expect(touchedAffix('mitochondria', 'mitochondira')).toBeNull();
  });
});
