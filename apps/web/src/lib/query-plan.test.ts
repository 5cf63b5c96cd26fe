import { describe, expect, it } from 'vitest';
import type { PlanNode } from './plan.js';
import { placeClass, withDerivedEstimates, withPlaces } from './query-plan.js';

const node = (operator: string, extra: Partial<PlanNode> = {}, children: PlanNode[] = []): PlanNode => ({
  operator,
  runsIn: 'junction',
  children,
  ...extra,
});
const scan = (rows?: number) =>
  node('RemoteQuery', { runsIn: 'dbA', ...(rows !== undefined ? { estimatedRows: rows } : {}) });

describe('withDerivedEstimates', () => {
  it('gives Sort and Project the estimate of their input', () => {
    const plan = withDerivedEstimates(node('Project', {}, [node('Sort', {}, [scan(1500)])]));
    expect(plan.estimatedRows).toBe(1500);
    expect(plan.children[0]!.estimatedRows).toBe(1500);
  });

  it('caps a Limit or TopN at its limit', () => {
    expect(withDerivedEstimates(node('Limit', { detail: '10' }, [scan(1500)])).estimatedRows).toBe(10);
    expect(withDerivedEstimates(node('TopN', { detail: '5000 OFFSET 2 by x' }, [scan(1500)])).estimatedRows).toBe(1500);
    expect(withDerivedEstimates(node('Limit', { detail: 'ALL OFFSET 3' }, [scan(7)])).estimatedRows).toBe(7);
  });

  it('keeps the engine’s own estimates and invents none it cannot derive', () => {
    expect(withDerivedEstimates(node('Sort', { estimatedRows: 3 }, [scan(1500)])).estimatedRows).toBe(3);
    expect(withDerivedEstimates(node('Filter', {}, [scan(1500)])).estimatedRows).toBeUndefined();
    expect(withDerivedEstimates(node('Sort', {}, [scan()])).estimatedRows).toBeUndefined();
    expect(withDerivedEstimates(node('Project', {}, [node('Filter', {}, [scan(9)])])).estimatedRows).toBeUndefined();
  });

  it('returns the same plan when there is nothing to add', () => {
    const plan = node('HashJoin', { estimatedRows: 4 }, [scan(1), scan(2)]);
    expect(withDerivedEstimates(plan)).toBe(plan);
  });
});

describe('placeClass', () => {
  it('gives each source of a timeline the colour it has in the plan legend', () => {
    const legend = new Map([
      ['junction', 0],
      ['dbA', 1],
      ['dbB', 2],
    ]);
    const places = withPlaces(legend, ['dbB', 'dbA', 'dbZ']);
    expect(placeClass(places, 'dbA')).toBe('j-place-1');
    expect(placeClass(places, 'dbB')).toBe('j-place-2');
    expect(placeClass(places, 'dbZ')).toBe('j-place-3');
    expect(new Set(['dbA', 'dbB', 'dbZ'].map((s) => placeClass(places, s))).size).toBe(3);
  });
});
