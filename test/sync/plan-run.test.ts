import { describe, expect, it } from 'vitest';
import { interleave } from '../../src/sync/plan-run.js';

describe('interleave (lane interleaving)', () => {
  it('alternates groups, keeping each group in its order, until every group is spent', () => {
    const lanes = ['a1', 'a2', 'a3', 'a4', 'b1', 'b2', 'c1'];
    expect(interleave(lanes, (lane) => lane[0])).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
  });

  it('leaves one group as it is, and nothing as nothing', () => {
    expect(interleave(['x1', 'x2'], () => 'x')).toEqual(['x1', 'x2']);
    expect(interleave([], () => 'x')).toEqual([]);
  });
});
