import { describe, expect, it } from 'vitest';
import {
  addJoin,
  addTable,
  isColumnPicked,
  moveOutput,
  removeJoin,
  removeTable,
  renameOutput,
  setJoinType,
  setLimit,
  toggleColumn,
} from './edit.js';
import { demoTable } from './fixtures.js';
import { EMPTY_GRAPH } from './model.js';
import { graphToSql } from './to-sql.js';
import { push, redo, startHistory, undo } from './history.js';

const at = { x: 0, y: 0 };

describe('graph edits', () => {
  it('gives each table a fresh alias, and removing a table drops its joins and columns', () => {
    let g = addTable(EMPTY_GRAPH, demoTable('customer'), at);
    g = addTable(g, demoTable('customer'), at);
    g = addTable(g, demoTable('orders'), at);
    expect(g.tables.map((t) => t.alias)).toEqual(['c', 'c2', 'o']);
    g = addJoin(g, { table: 'o', column: 'o_custkey' }, { table: 'c2', column: 'c_custkey' });
    g = toggleColumn(g, { table: 'c2', column: 'c_name' });
    g = toggleColumn(g, { table: 'o', column: 'o_orderkey' });
    g = removeTable(g, 'c2');
    expect(g.joins).toEqual([]);
    expect(g.outputs).toEqual([{ source: { kind: 'column', ref: { table: 'o', column: 'o_orderkey' } } }]);
  });

  it('keeps one join type per pair of tables, whichever way a condition is drawn', () => {
    let g = addTable(EMPTY_GRAPH, demoTable('orders'), at);
    g = addTable(g, demoTable('customer'), at);
    g = addJoin(g, { table: 'o', column: 'o_custkey' }, { table: 'c', column: 'c_custkey' }, 'left');
    // the same condition again, either way round, is not a second join
    expect(addJoin(g, { table: 'c', column: 'c_custkey' }, { table: 'o', column: 'o_custkey' })).toBe(g);
    g = addJoin(g, { table: 'c', column: 'c_nationkey' }, { table: 'o', column: 'o_orderkey' });
    expect(g.joins.map((j) => j.type)).toEqual(['left', 'right']);
    g = setJoinType(g, 'o.o_custkey=c.c_custkey', 'full');
    expect(g.joins.map((j) => j.type)).toEqual(['full', 'full']);
    expect(graphToSql(g).split('\n')[3]).toBe(
      '  FULL JOIN dbB.customer AS c ON o.o_custkey = c.c_custkey AND o.o_orderkey = c.c_nationkey',
    );
    expect(removeJoin(g, 'o.o_custkey=c.c_custkey').joins).toHaveLength(1);
  });

  it('picks, renames (the own name is no rename), reorders and unpicks columns', () => {
    let g = addTable(EMPTY_GRAPH, demoTable('nation'), at);
    g = toggleColumn(g, { table: 'n', column: 'n_name' });
    g = toggleColumn(g, { table: 'n', column: 'n_nationkey' });
    g = renameOutput(g, 0, 'nation');
    g = moveOutput(g, 1, -1);
    expect(graphToSql(g).split('\n').slice(1, 3)).toEqual(['  n.n_nationkey,', '  n.n_name AS nation']);
    g = renameOutput(g, 1, 'n_name');
    expect(g.outputs[1]).toEqual({ source: { kind: 'column', ref: { table: 'n', column: 'n_name' } } });
    expect(moveOutput(g, 1, 1)).toBe(g);
    g = toggleColumn(g, { table: 'n', column: 'n_name' });
    expect(isColumnPicked(g, { table: 'n', column: 'n_name' })).toBe(false);
    expect(setLimit(setLimit(g, 5), undefined)).toEqual(g);
  });
});

describe('history', () => {
  it('undoes and redoes; a new edit clears what could be redone; no-op edits are not steps', () => {
    let h = startHistory(1);
    h = push(h, 2);
    h = push(h, 3);
    expect(push(h, h.present)).toBe(h);
    h = undo(undo(h));
    expect(h.present).toBe(1);
    expect(undo(h)).toBe(h);
    h = redo(h);
    expect(h.present).toBe(2);
    h = push(h, 9);
    expect(h).toEqual({ past: [1, 2], present: 9, future: [] });
    expect(redo(h)).toBe(h);
  });
});
