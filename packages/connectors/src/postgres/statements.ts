/** How one execution sends its statement: under which name, whether to Parse it first, and names to Close before. */
export interface StatementUse {
  /** '' is the unnamed statement, parsed and planned anew each time */
  readonly name: string;
  readonly parse: boolean;
  /** statements this connection no longer wants (evicted, or their last use failed) */
  readonly close: readonly string[];
}

/** A SQL text is prepared under a name from its second use on a connection: one-off statements stay unnamed. */
const PREPARE_FROM_USE = 2;

/**
 * The named server-side statements of one PostgreSQL connection, by SQL text, least recently
 * used first.
 *
 * Why: an unnamed statement is planned anew on every execution, and planning a join of many
 * tables costs PostgreSQL milliseconds (JDV B, an 8-table join: 7–15 ms of a 60 ms query). A
 * named statement keeps its plan: one without parameters plans once; one with parameters gets
 * PostgreSQL's usual choice (custom plans for its first five executions, then the generic plan
 * when that is not costlier, see plan_cache_mode), as every program using prepared
 * statements does (pgjdbc prepares from a statement's fifth use). A text is named from its
 * second use, so one-off statements leave nothing behind in the server, and at most `capacity`
 * statements are kept per connection: the server holds each one's plan.
 *
 * A statement's name is trusted only after a use of it succeeded: one whose Parse may have
 * failed, or that stopped midway, is closed (Close of a name the server does not hold is not
 * an error) and its text starts over.
 */
export class PreparedStatements {
  private readonly entries = new Map<string, { uses: number; name?: string; pending: boolean }>();
  private closing: string[] = [];
  private serial = 0;

  /** 0: every statement unnamed */
  constructor(readonly capacity = 64) {}

  /** The statement to send for `text`; report how it went with done(). */
  use(text: string): StatementUse {
    let entry = this.entries.get(text);
    if (entry) this.entries.delete(text);
    if (entry?.pending) {
      // the last use never reported: its name may or may not exist on the server
      this.drop(entry);
      entry = undefined;
    }
    entry ??= { uses: 0, pending: false };
    entry.uses++;
    this.entries.set(text, entry);
    let parse = false;
    if (entry.name === undefined && entry.uses >= PREPARE_FROM_USE) {
      entry.name = `junction_${++this.serial}`;
      parse = true;
    }
    entry.pending = entry.name !== undefined;
    for (const [oldest, e] of this.entries) {
      if (this.entries.size <= this.capacity) break;
      this.entries.delete(oldest);
      this.drop(e);
    }
    const close = this.closing;
    this.closing = [];
    return entry.name === undefined ? { name: '', parse: true, close } : { name: entry.name, parse, close };
  }

  /** How the use of `text` ended: ok (every row read) or not (failed, or stopped early). */
  done(text: string, ok: boolean): void {
    const entry = this.entries.get(text);
    if (!entry?.pending) return;
    entry.pending = false;
    if (ok) return;
    this.entries.delete(text);
    this.drop(entry);
  }

  /** Names held, oldest first (for tests). */
  names(): string[] {
    return [...this.entries.values()].flatMap((e) => (e.name !== undefined && !e.pending ? [e.name] : []));
  }

  private drop(entry: { name?: string }): void {
    if (entry.name !== undefined) this.closing.push(entry.name);
  }
}
