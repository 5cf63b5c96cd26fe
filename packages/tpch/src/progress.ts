import type { LoadEvent } from './load.js';

interface Bar {
  rows: number;
  total: number;
}

/**
 * Load progress on a stream (stderr): on a terminal, one redrawn bar per table; otherwise
 * one line per phase and per finished table, so CI logs stay short.
 */
export class ProgressBars {
  private readonly bars = new Map<string, Bar>();
  private readonly phases = new Map<string, string>();
  private drawnLines = 0;
  private lastDraw = 0;
  private readonly started = Date.now();

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly tty = Boolean(out.isTTY),
  ) {}

  readonly onEvent = (event: LoadEvent): void => {
    switch (event.kind) {
      case 'plan':
        this.bars.set(`${event.target}.${event.table}`, { rows: 0, total: event.totalRows });
        break;
      case 'skip':
        this.log(`${event.target}: already loaded (sf ${event.marker.sf}, seed ${event.marker.seed}), skipped`);
        return;
      case 'rows': {
        const key = `${event.target}.${event.table}`;
        const bar = this.bars.get(key) ?? { rows: 0, total: event.totalRows };
        const wasDone = bar.rows >= bar.total;
        bar.rows = event.rows;
        bar.total = event.totalRows;
        this.bars.set(key, bar);
        if (!this.tty && !wasDone && bar.rows >= bar.total) this.log(`${key}: ${fmt(bar.rows)} rows loaded`);
        break;
      }
      case 'phase':
        this.phases.set(event.target, event.phase);
        if (!this.tty) this.log(`${event.target}: ${phaseText(event.phase)}`);
        break;
    }
    this.draw(event.kind !== 'rows');
  };

  /** Final redraw, then a blank line so later output starts below the bars. */
  done(): void {
    this.draw(true);
  }

  private log(line: string): void {
    const secs = ((Date.now() - this.started) / 1000).toFixed(1).padStart(6);
    if (this.tty) this.clear();
    this.out.write(`[${secs}s] ${line}\n`);
    if (this.tty) this.draw(true);
  }

  private clear(): void {
    if (this.drawnLines > 0) this.out.write(`\x1b[${this.drawnLines}A\x1b[J`);
    this.drawnLines = 0;
  }

  private draw(force: boolean): void {
    if (!this.tty) return;
    const now = Date.now();
    if (!force && now - this.lastDraw < 100) return;
    this.lastDraw = now;
    const width = Math.max(...[...this.bars.keys()].map((k) => k.length), 10);
    const lines: string[] = [];
    for (const [key, bar] of this.bars) {
      const ratio = bar.total > 0 ? Math.min(1, bar.rows / bar.total) : 1;
      const filled = Math.round(ratio * 30);
      const target = key.slice(0, key.indexOf('.'));
      const phase = this.phases.get(target);
      const note = ratio >= 1 && phase && phase !== 'create' ? ` ${phaseText(phase)}` : '';
      lines.push(
        `${key.padEnd(width)} [${'#'.repeat(filled)}${'.'.repeat(30 - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}% ` +
          `${fmt(bar.rows)}/${fmt(bar.total)}${note}`,
      );
    }
    this.clear();
    this.out.write(lines.map((l) => `\x1b[2K${l}\n`).join(''));
    this.drawnLines = lines.length;
  }
}

function phaseText(phase: string): string {
  switch (phase) {
    case 'create':
      return 'tables created, loading';
    case 'index':
      return 'building keys and indexes';
    case 'analyze':
      return 'analyzing';
    default:
      return 'done';
  }
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}
