import type { LogicalPlan } from '../plan/logical.js';
import { printPlan } from '../plan/print.js';
import type { OptimizeInput, Rule } from './context.js';
import { applyRule } from './driver.js';
import { PG_CAPS, sources } from './test-support.js';

/** Applies ONE rule at the root of `plan` and prints the result, or 'did not fire'. */
export function fire(
  rule: Rule,
  plan: LogicalPlan,
  input: OptimizeInput = sources({ dbA: PG_CAPS, dbB: PG_CAPS }),
): string {
  const out = applyRule(plan, { name: rule.name, apply: rule }, input);
  return out === undefined ? 'did not fire' : printPlan(out);
}
