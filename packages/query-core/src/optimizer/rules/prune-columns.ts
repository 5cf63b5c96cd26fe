import type { Expr, LogicalPlan } from '../../plan/logical.js';
import { outputFields } from '../../plan/fields.js';
import { refsOf } from '../exprs.js';

/**
 * Projection pushdown. Project and Aggregate decide exactly which input fields they read, so
 * at those nodes the input chain below (Filter, Sort, Limit, Join, Project, Aggregate, Scan)
 * is narrowed to what is read: scans fetch fewer columns and remote queries select fewer.
 * Required columns flow top-down, so the narrowing of one input chain happens in one step
 * (like DataFusion's OptimizeProjections); the rule fires again only if something shrinks.
 */
export function pruneColumns(node: LogicalPlan): LogicalPlan | undefined {
  return pruneColumnsWith(node, narrowScan);
}

type ScanNode = Extract<LogicalPlan, { kind: 'Scan' }>;

/**
 * What a scan becomes when only the columns at `keep` (fewer than all) are read above it.
 * `keepsScan`: the scan itself stays whole, so a Project or Aggregate right above it, which
 * reads only its own columns anyway, is left as it is.
 */
export type AtScan = ((scan: ScanNode, keep: readonly number[]) => LogicalPlan) & { readonly keepsScan?: boolean };

function narrowScan(scan: ScanNode, keep: readonly number[]): LogicalPlan {
  return { ...scan, fields: keep.map((i) => scan.fields[i]), columns: keep.map((i) => scan.columns[i]) };
}

/** pruneColumns with what happens at a scan left to the caller (see project-columns-in-junction.ts). */
export function pruneColumnsWith(node: LogicalPlan, atScan: AtScan): LogicalPlan | undefined {
  if (node.kind === 'Project') {
    const input = narrowBelow(node.input, refsOfAll(node.exprs.map((e) => e.expr)), atScan);
    return input === node.input ? undefined : { ...node, input };
  }
  if (node.kind === 'Aggregate') {
    const used = refsOfAll([
      ...node.groupBy.map((g) => g.expr),
      ...node.aggregates.flatMap((a) => [...a.args, ...(a.filter ? [a.filter] : [])]),
    ]);
    const input = narrowBelow(node.input, used, atScan);
    return input === node.input ? undefined : { ...node, input };
  }
  return undefined;
}

function refsOfAll(es: readonly Expr[], into: Set<number> = new Set()): Set<number> {
  for (const e of es) refsOf(e, into);
  return into;
}

/** The input of a Project or Aggregate narrowed, except a scan `atScan` keeps whole: they read only their own columns of it. */
function narrowBelow(input: LogicalPlan, needed: ReadonlySet<number>, atScan: AtScan): LogicalPlan {
  return atScan.keepsScan && input.kind === 'Scan' ? input : narrow(input, needed, atScan);
}

/** `plan` with its output cut down to (a superset of) `needed`; the same object when nothing changes. */
function narrow(plan: LogicalPlan, needed: ReadonlySet<number>, atScan: AtScan): LogicalPlan {
  switch (plan.kind) {
    case 'Scan': {
      let keep = plan.fields.map((f, i) => i).filter((i) => needed.has(plan.fields[i].id));
      // a SELECT needs at least one column (count(*) over a table reads none)
      if (keep.length === 0) keep = [0];
      if (keep.length === plan.fields.length) return plan;
      return atScan(plan, keep);
    }
    case 'Filter': {
      const input = narrow(plan.input, refsOfAll([plan.predicate], new Set(needed)), atScan);
      return input === plan.input ? plan : { ...plan, input };
    }
    case 'Sort': {
      const input = narrow(
        plan.input,
        refsOfAll(
          plan.keys.map((k) => k.expr),
          new Set(needed),
        ),
        atScan,
      );
      return input === plan.input ? plan : { ...plan, input };
    }
    case 'Limit': {
      const input = narrow(plan.input, needed, atScan);
      return input === plan.input ? plan : { ...plan, input };
    }
    case 'Project': {
      let exprs = plan.exprs.filter((e) => needed.has(e.field.id));
      if (exprs.length === 0) exprs = [plan.exprs[0]];
      const input = narrowBelow(plan.input, refsOfAll(exprs.map((e) => e.expr)), atScan);
      if (exprs.length === plan.exprs.length && input === plan.input) return plan;
      return { ...plan, exprs, input };
    }
    case 'Aggregate': {
      let aggregates = plan.aggregates.filter((a) => needed.has(a.field.id));
      if (aggregates.length === 0 && plan.groupBy.length === 0 && plan.aggregates.length > 0)
        aggregates = [plan.aggregates[0]];
      const used = refsOfAll([
        ...plan.groupBy.map((g) => g.expr),
        ...aggregates.flatMap((a) => [...a.args, ...(a.filter ? [a.filter] : [])]),
      ]);
      const input = narrowBelow(plan.input, used, atScan);
      if (aggregates.length === plan.aggregates.length && input === plan.input) return plan;
      return { ...plan, aggregates, input };
    }
    case 'Join': {
      const all = plan.condition ? refsOfAll([plan.condition], new Set(needed)) : new Set(needed);
      const left = narrow(plan.left, pick(all, plan.left), atScan);
      const right = narrow(plan.right, pick(all, plan.right), atScan);
      return left === plan.left && right === plan.right ? plan : { ...plan, left, right };
    }
    case 'MarkJoin': {
      const all = refsOfAll([...(plan.condition ? [plan.condition] : []), ...(plan.compare ? [plan.compare] : [])], new Set(needed));
      const left = narrow(plan.left, pick(all, plan.left), atScan);
      const right = narrow(plan.right, pick(all, plan.right), atScan);
      return left === plan.left && right === plan.right ? plan : { ...plan, left, right };
    }
    case 'Window': {
      const windows = plan.windows.filter((w) => needed.has(w.field.id));
      // no window value is read: the rows pass through unchanged
      if (windows.length === 0) return narrow(plan.input, needed, atScan);
      const used = refsOfAll(
        windows.flatMap((w) => [...w.args, ...w.partitionBy, ...w.orderBy.map((k) => k.expr)]),
        new Set(needed),
      );
      const input = narrow(plan.input, used, atScan);
      if (windows.length === plan.windows.length && input === plan.input) return plan;
      return { ...plan, windows, input };
    }
    default:
      // Distinct, SetOp, Values and Remote: every input column matters (or is fixed)
      return plan;
  }
}

function pick(ids: ReadonlySet<number>, side: LogicalPlan): Set<number> {
  return new Set(
    outputFields(side)
      .map((f) => f.id)
      .filter((id) => ids.has(id)),
  );
}
