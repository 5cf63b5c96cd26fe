import { describe, expect, it } from 'vitest';
import type { PlanNode } from './plan.js';
import { dependentJoins, dependentWhatIf, layoutPlan, NODE_H, NODE_W, placeIndex } from './plan-graph.js';

const leaf = (runsIn: string, timeMs?: number): PlanNode => ({
  operator: 'RemoteQuery',
  runsIn,
  sql: 'SELECT "o"."k" AS "k" FROM "public"."orders" "o" WHERE ("o"."d" < $1::date)',
  estimatedRows: 2500,
  ...(timeMs !== undefined ? { actual: { rows: 10, batches: 1, timeMs } } : {}),
  children: [],
});

const plan = (analyzed: boolean): PlanNode => ({
  operator: 'Sort',
  runsIn: 'junction',
  ...(analyzed ? { actual: { rows: 10, batches: 1, timeMs: 50 } } : {}),
  children: [
    {
      operator: 'DependentJoin',
      runsIn: 'junction',
      detail: 'inner driver=left maxInList=1000 on (a = b)',
      ...(analyzed ? { actual: { rows: 10, batches: 1, timeMs: 45 } } : {}),
      children: [analyzed ? leaf('dbB', 5) : leaf('dbB'), analyzed ? leaf('dbA', 30) : leaf('dbA')],
    },
  ],
});

describe('plan graph', () => {
  it('places leaves side by side and parents centred above their children', () => {
    const l = layoutPlan(plan(false));
    const at = (id: string) => l.nodes.find((n) => n.id === id)!;
    expect(l.nodes.map((n) => n.id)).toEqual(['0', '0.0', '0.0.0', '0.0.1']);
    expect(l.edges).toEqual([
      { from: '0', to: '0.0' },
      { from: '0.0', to: '0.0.0' },
      { from: '0.0', to: '0.0.1' },
    ]);
    expect(at('0.0.0').x).toBe(0);
    expect(at('0.0.1').x).toBe(NODE_W + 24);
    expect(at('0.0').x).toBe((NODE_W + 24) / 2);
    expect(at('0').x).toBe(at('0.0').x);
    expect(at('0.0.1').y).toBe(2 * (NODE_H + 40));
    expect(l.width).toBe(2 * NODE_W + 24);
    expect(l.hot).toBeUndefined();
  });

  it('finds the hot node by its own time (its time less its children)', () => {
    const l = layoutPlan(plan(true));
    expect(l.nodes.map((n) => n.selfMs)).toEqual([5, 10, 5, 30]);
    expect(l.hot).toBe('0.0.1');
  });

  it('colours by where a step runs: Junction first, then sources by name', () => {
    expect([...placeIndex(plan(false))]).toEqual([
      ['junction', 0],
      ['dbA', 1],
      ['dbB', 2],
    ]);
  });

  it('works out what a dependent join would send for a number of keys', () => {
    const [dj] = dependentJoins(plan(false));
    expect(dj).toMatchObject({ id: '0.0', maxInList: 1000, drivenSource: 'dbA', estimatedKeys: 2500 });
    const w = dependentWhatIf(dj, 2500);
    expect([w.statements, w.keysPerStatement]).toEqual([3, 1000]);
    const one = dependentWhatIf(dj, 1);
    expect(one.statementChars).toBe(dj.drivenSql.length + ' AND (k IN ())'.length + '$1::date'.length);
    expect(dependentWhatIf({ maxInList: 500, drivenSql: 'SELECT a FROM t WHERE b = ?' }, 3).statementChars).toBe(
      'SELECT a FROM t WHERE b = ?'.length + ' AND (k IN ())'.length + '?, ?, ?'.length,
    );
    expect(dependentWhatIf(dj, 0).statements).toBe(0);
  });
});
