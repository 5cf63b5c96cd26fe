import type { Node } from 'sql-parser-cst';
import type { Field } from '../../plan/logical.js';
import { displayName, nameMatches, suggest } from '../../catalog/names.js';
import type { NamePart } from '../../catalog/names.js';
import type { BindContext } from './context.js';

export interface ColumnBinding {
  readonly name: string;
  /** the relation alias the column is qualified by */
  readonly relation?: string;
  readonly field: Field;
  /** merged USING/NATURAL columns hide the originals from `*` */
  readonly hidden?: boolean;
}

/** Columns referenced from an enclosing query (correlation), recorded per subquery scope. */
export interface Correlation {
  readonly outerIds: Set<number>;
}

/**
 * The columns visible at one point of a query. `parent` is the enclosing query's scope
 * (for correlated subqueries); references that reach it are recorded in `correlation`.
 */
export class Scope {
  constructor(
    readonly columns: ColumnBinding[],
    readonly parent?: Scope,
    readonly correlation?: Correlation,
  ) {}

  static empty(parent?: Scope): Scope {
    return new Scope([], parent, parent ? { outerIds: new Set() } : undefined);
  }

  withColumns(columns: ColumnBinding[]): Scope {
    return new Scope(columns, this.parent, this.correlation);
  }

  relations(): string[] {
    return [...new Set(this.columns.map((c) => c.relation).filter((r): r is string => r !== undefined))];
  }

  /** Resolves a column reference; returns undefined when no scope (local or outer) has it. */
  lookup(ctx: BindContext, parts: readonly NamePart[], node: Node): Field | undefined {
    const local = this.lookupLocal(ctx, parts, node);
    if (local) return local;
    if (this.parent) {
      const outer = this.parent.lookup(ctx, parts, node);
      if (outer) {
        this.correlation?.outerIds.add(outer.id);
        return outer;
      }
    }
    return undefined;
  }

  resolve(ctx: BindContext, parts: readonly NamePart[], node: Node): Field {
    const f = this.lookup(ctx, parts, node);
    if (f) return f;
    const name = displayName(parts);
    if (parts.length >= 2 && !this.hasRelation(parts[parts.length - 2])) {
      const hint = suggest(parts[parts.length - 2].name, this.allRelations());
      throw ctx.error(
        'user',
        'undefined_table',
        `missing FROM-clause entry for table "${parts[parts.length - 2].name}"${hint ? `; did you mean "${hint}"?` : ''}`,
        node,
      );
    }
    const candidates = this.allColumnNames(parts.length >= 2 ? parts[parts.length - 2] : undefined);
    const hint = suggest(parts[parts.length - 1].name, candidates);
    throw ctx.error(
      'user',
      'undefined_column',
      `column "${name}" does not exist${hint ? `; did you mean "${hint}"?` : ''}`,
      node,
      {
        column: name,
        ...(hint ? { suggestion: hint } : {}),
      },
    );
  }

  /** This scope and its enclosing ones, innermost first. */
  private chain(): Scope[] {
    const out: Scope[] = [];
    for (let s: Scope | undefined = this.parent; s; s = s.parent) out.push(s);
    return [this as Scope, ...out];
  }

  private hasRelation(part: NamePart): boolean {
    return this.chain().some((s) => s.columns.some((c) => c.relation !== undefined && nameMatches(part, c.relation)));
  }

  private allRelations(): string[] {
    return this.chain().flatMap((s) => s.relations());
  }

  private allColumnNames(relation: NamePart | undefined): string[] {
    const out: string[] = [];
    for (const s of this.chain()) {
      for (const c of s.columns)
        if (!relation || (c.relation !== undefined && nameMatches(relation, c.relation))) out.push(c.name);
    }
    return out;
  }

  private lookupLocal(ctx: BindContext, parts: readonly NamePart[], node: Node): Field | undefined {
    if (parts.length > 2) {
      // schema-qualified column references (db.table.col): match on the last two parts
      return this.lookupLocal(ctx, parts.slice(-2), node);
    }
    const col = parts[parts.length - 1];
    const rel = parts.length === 2 ? parts[0] : undefined;
    let matches = this.columns.filter(
      (c) => nameMatches(col, c.name) && (!rel || (c.relation !== undefined && nameMatches(rel, c.relation))),
    );
    if (!rel) {
      // merged USING columns shadow the originals for unqualified references
      const visible = matches.filter((c) => !c.hidden);
      if (visible.length > 0) matches = visible;
    }
    if (matches.length > 1 && !col.quoted) {
      const exact = matches.filter((c) => c.name === col.name);
      if (exact.length >= 1) matches = exact;
    }
    const ids = new Set(matches.map((c) => c.field.id));
    if (ids.size > 1) {
      throw ctx.error(
        'user',
        'ambiguous_column',
        `column reference "${displayName(parts)}" is ambiguous; qualify it with one of: ${[...new Set(matches.map((m) => m.relation ?? '?'))].join(', ')}`,
        node,
      );
    }
    return matches[0]?.field;
  }
}
