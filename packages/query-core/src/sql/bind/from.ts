import { JunctionError } from '@junction/connectors';
import type { JoinType } from '@junction/connectors';
import type * as C from 'sql-parser-cst';
import type { Expr, Field, LogicalPlan } from '../../plan/logical.js';
import { outputFields } from '../../plan/fields.js';
import type { NamePart } from '../../catalog/names.js';
import { and, factorOr } from './coerce.js';
import { bindExpr, comparison, identPart, nameParts, requireBool } from './expr.js';
import type { ExprEnv } from './expr.js';
import type { PendingMark } from './subquery.js';
import { fieldMap } from './plan-utils.js';
import type { BoundQuery, QueryBinder } from './query.js';
import { Scope } from './scope.js';
import type { ColumnBinding } from './scope.js';

export interface BoundFrom {
  readonly plan: LogicalPlan;
  readonly columns: ColumnBinding[];
}

/**
 * FROM clause → join tree of Scans (views and CTEs inlined, derived tables bound in place).
 * Comma joins become cross joins and ON conditions stay on their join; the optimizer moves
 * predicates where they belong.
 */
export class FromBinder {
  constructor(private readonly q: QueryBinder) {}

  private get ctx() {
    return this.q.ctx;
  }

  bind(node: C.Node, outer: Scope): BoundFrom {
    switch (node.type) {
      case 'join_expr':
        return this.join(node, outer);
      case 'alias':
        return this.factor(node.expr as C.Node, outer, node.alias, node.columnAliases?.expr.items);
      default:
        return this.factor(node, outer, undefined, undefined);
    }
  }

  private factor(
    node: C.Node,
    outer: Scope,
    alias: C.Identifier | undefined,
    columnAliases: C.Identifier[] | undefined,
  ): BoundFrom {
    const ctx = this.ctx;
    switch (node.type) {
      case 'identifier':
      case 'member_expr': {
        const parts = nameParts(node);
        if (!parts) throw ctx.unsupported('this table expression', node);
        return this.named(parts, node, alias, columnAliases);
      }
      case 'table_with_inheritance':
      case 'table_without_inheritance':
        return this.factor(node.table as C.Node, outer, alias, columnAliases);
      case 'paren_expr': {
        const inner = node.expr as C.Node;
        if (inner.type === 'select_stmt' || inner.type === 'compound_select_stmt') {
          const q = this.q.bindQuery(inner);
          return this.relation(q, alias?.name ?? '?subquery?', columnAliases, node);
        }
        if (inner.type === 'func_call' && nameParts(inner.name)?.[0].name.toUpperCase() === 'VALUES') {
          // the parser reads a one-row (VALUES (…)) as a function call
          const env: ExprEnv = { ctx, scope: Scope.empty(), clause: 'VALUES' };
          const row = (inner.args?.expr.args.items ?? []).map((i) => bindExpr(env, i as C.Node));
          return this.relation(this.q.valuesQuery([row], inner), alias?.name ?? '?values?', columnAliases, node);
        }
        if (alias) throw ctx.unsupported('an alias on a parenthesised join', alias);
        return this.bind(inner, outer);
      }
      case 'alias':
        return this.factor(node.expr as C.Node, outer, node.alias, node.columnAliases?.expr.items);
      case 'lateral_derived_table':
        throw ctx.unsupported('LATERAL', node);
      case 'func_call':
        throw ctx.unsupported('table functions', node);
      default:
        throw ctx.unsupported(`FROM item ${node.type.replace(/_/g, ' ')}`, node);
    }
  }

  private named(
    parts: NamePart[],
    node: C.Node,
    alias: C.Identifier | undefined,
    columnAliases: C.Identifier[] | undefined,
  ): BoundFrom {
    const ctx = this.ctx;
    const relationName = alias?.name ?? parts[parts.length - 1].name;
    if (parts.length === 1 && node.type === 'identifier') {
      const cte = this.q.bindCte(node);
      if (cte) {
        const names = columnAliases?.map((c) => c.name) ?? cte.columnNames;
        return this.relation(cte.query, relationName, undefined, node, names);
      }
    }
    const resolved = ctx.catalog.resolve(parts, {
      searchPath: ctx.options.searchPath,
      // inside a view, the view's grant covers what it reads
      access: ctx.viewStack.length > 0 ? undefined : ctx.options.access,
      position: ctx.position(node),
    });
    // names inside a view belong to that view's own references
    const own = ctx.viewStack.length === 0;
    if (own && resolved.kind === 'view') ctx.references.push({ kind: 'view', schema: resolved.view.schema, name: resolved.view.name });
    if (own && resolved.kind === 'table') ctx.references.push({ kind: 'table', source: resolved.ref.source, schema: resolved.ref.schema, table: resolved.ref.table });
    if (resolved.kind === 'table') {
      ctx.sources.add(resolved.ref.source);
      const access = ctx.options.access;
      if (!own && access && !access.canReadSource(resolved.ref.source)) ctx.shield.throughView = true;
    }
    if (resolved.kind === 'view') {
      const q = this.q.bindView(resolved.view.schema, resolved.view.name, resolved.view.sql, node);
      return this.relation(q, alias?.name ?? resolved.view.name, columnAliases, node);
    }
    const table = resolved.table;
    if (columnAliases && columnAliases.length > table.columns.length) {
      throw ctx.error(
        'user',
        'invalid_column_reference',
        `table "${table.name}" has ${table.columns.length} columns available but ${columnAliases.length} columns specified`,
        node,
      );
    }
    const fields: Field[] = table.columns.map((c, i) => ({
      id: ctx.newId(),
      name: columnAliases?.[i]?.name ?? c.name,
      type: c.type,
      nullable: c.nullable,
      relation: relationName,
    }));
    const pk = (table.primaryKey ?? [])
      .map((name) => fields[table.columns.findIndex((c) => c.name === name)]?.id)
      .filter((id): id is number => id !== undefined);
    if (pk.length > 0 && pk.length === (table.primaryKey ?? []).length)
      for (const f of fields) ctx.primaryKeys.set(f.id, pk);
    const plan: LogicalPlan = {
      kind: 'Scan',
      table: resolved.ref,
      fields,
      columns: table.columns.map((c) => c.name),
      alias: relationName,
      ...(table.rowCount !== undefined ? { rowCount: table.rowCount } : {}),
    };
    return { plan, columns: fields.map((f) => ({ name: f.name, relation: relationName, field: f })) };
  }

  /** A bound query used as a relation (derived table, view, CTE): its columns qualified by the alias. */
  private relation(
    q: BoundQuery,
    alias: string,
    columnAliases: C.Identifier[] | undefined,
    node: C.Node,
    names?: string[],
  ): BoundFrom {
    const aliasNames = columnAliases?.map((c) => c.name) ?? names;
    if (aliasNames && aliasNames.length > q.columns.length) {
      throw this.ctx.error(
        'user',
        'invalid_column_reference',
        `"${alias}" has ${q.columns.length} columns available but ${aliasNames.length} columns specified`,
        node,
      );
    }
    const columns = q.columns.map((c, i) => ({
      name: aliasNames?.[i] ?? c.name,
      relation: alias,
      field: { ...c.field, relation: alias },
    }));
    return { plan: q.plan, columns };
  }

  private join(node: C.JoinExpr, outer: Scope): BoundFrom {
    const ctx = this.ctx;
    const left = this.bind(node.left as C.Node, outer);
    const right = this.bind(node.right as C.Node, outer);
    const dup = right.columns.find(
      (r) =>
        r.relation !== undefined && left.columns.some((l) => l.relation === r.relation && l.relation !== undefined),
    );
    if (dup && !left.columns.some((l) => l.field.id === dup.field.id)) {
      throw ctx.error(
        'user',
        'duplicate_alias',
        `table name "${dup.relation}" specified more than once; give one of them an alias`,
        node.right as C.Node,
      );
    }
    const words =
      node.operator === ','
        ? [',']
        : (Array.isArray(node.operator) ? node.operator : [node.operator]).map((k) => k.name.toUpperCase());
    let type: JoinType;
    if (words[0] === ',' || words.includes('CROSS')) type = 'cross';
    else if (words.includes('LEFT')) type = 'left';
    else if (words.includes('RIGHT')) type = 'right';
    else if (words.includes('FULL')) type = 'full';
    else if (words.includes('STRAIGHT_JOIN')) throw ctx.unsupported('STRAIGHT_JOIN', node);
    else type = 'inner';
    const natural = words.includes('NATURAL');

    const scope = new Scope([...left.columns, ...right.columns], outer, outer.correlation);
    let leftPlan = left.plan;
    let rightPlan = right.plan;
    let condition: Expr | undefined;
    let columns: ColumnBinding[] = [...left.columns, ...right.columns];
    let usingNames: { part: NamePart; node: C.Node }[] | undefined;
    if (natural) {
      const rightNames = new Set(right.columns.filter((c) => !c.hidden).map((c) => c.name));
      usingNames = left.columns
        .filter((c) => !c.hidden && rightNames.has(c.name))
        .map((c) => ({ part: { name: c.name, quoted: true }, node: node as C.Node }));
      if (usingNames.length === 0 && type !== 'cross') type = type === 'inner' ? 'cross' : type;
    }
    const spec = node.specification;
    if (spec?.type === 'join_using_specification')
      usingNames = spec.expr.expr.items.map((i) => ({ part: identPart(i), node: i }));
    if (usingNames && usingNames.length > 0) {
      if (type === 'full') throw ctx.unsupported('FULL JOIN with USING/NATURAL; write the ON condition', node);
      const merged: ColumnBinding[] = [];
      const eqs: Expr[] = [];
      const hiddenIds = new Set<number>();
      for (const u of usingNames) {
        const l = findColumn(left.columns, u.part);
        const r = findColumn(right.columns, u.part);
        if (!l || !r) {
          throw ctx.error(
            'user',
            'undefined_column',
            `column "${u.part.name}" specified in USING clause does not exist in ${l ? 'right' : 'left'} table`,
            u.node,
          );
        }
        const env: ExprEnv = { ctx, scope, clause: 'USING' };
        eqs.push(
          comparison(
            env,
            'eq',
            { kind: 'ref', id: l.field.id, type: l.field.type },
            { kind: 'ref', id: r.field.id, type: r.field.type },
            u.node,
          ),
        );
        const keep = type === 'right' ? r : l;
        merged.push({ name: l.name, field: keep.field });
        hiddenIds.add(l.field.id);
        hiddenIds.add(r.field.id);
      }
      condition = and(eqs);
      if (type === 'cross') type = 'inner';
      columns = [...merged, ...columns.map((c) => (hiddenIds.has(c.field.id) ? { ...c, hidden: true } : c))];
    } else if (spec?.type === 'join_on_specification') {
      const marks: PendingMark[] = [];
      const { sink, correlated } = this.q.onClauseSubqueries(marks);
      const env: ExprEnv = { ctx, scope, clause: 'JOIN/ON', subqueries: sink };
      condition = factorOr(requireBool(env, bindExpr(env, spec.expr as C.Node), spec.expr as C.Node));
      if (correlated.length > 0) throw ctx.unsupported('a correlated scalar subquery in JOIN/ON', spec.expr as C.Node);
      // an IN/EXISTS of ON reads one side's row: its mark is a column of that side
      const leftIds = new Set(outputFields(leftPlan).map((f) => f.id));
      const rightIds = new Set(outputFields(rightPlan).map((f) => f.id));
      for (const m of marks) {
        if ([...m.reads].every((id) => leftIds.has(id))) leftPlan = m.apply(leftPlan);
        else if ([...m.reads].every((id) => rightIds.has(id))) rightPlan = m.apply(rightPlan);
        else throw ctx.unsupported('a subquery in JOIN/ON reading both sides of the join', spec.expr as C.Node);
      }
      if (type === 'cross') type = 'inner';
    } else if (type !== 'cross' && !natural) {
      throw ctx.error('user', 'syntax_error', `${words.join(' ')} requires an ON or USING condition`, node);
    }
    const plan: LogicalPlan = {
      kind: 'Join',
      type,
      left: leftPlan,
      right: rightPlan,
      ...(condition ? { condition } : {}),
    };
    // outer joins make the other side nullable: refresh the scope's fields from the plan
    const fields = fieldMap(outputFields(plan));
    columns = columns.map((c) => {
      const f = fields.get(c.field.id);
      return f && f.nullable !== c.field.nullable ? { ...c, field: { ...c.field, nullable: f.nullable } } : c;
    });
    return { plan, columns };
  }
}

function findColumn(columns: ColumnBinding[], part: NamePart): ColumnBinding | undefined {
  const matches = columns.filter(
    (c) => !c.hidden && (part.quoted ? c.name === part.name : c.name.toLowerCase() === part.name.toLowerCase()),
  );
  if (matches.length > 1) {
    throw new JunctionError('ambiguous_column', 'user', `common column name "${part.name}" appears more than once`);
  }
  return matches[0];
}
