import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { JunctionError, type Connector } from '@junction/connectors';
import { LAYOUTS, loadTpch, type LayoutName, type LoadTarget } from '@junction/tpch';
import type { Principal } from '../plugins/auth.js';

export interface LoadJob {
  readonly id: string;
  status: 'running' | 'done' | 'failed';
  readonly layout: LayoutName;
  readonly sf: number;
  /** layout target (dbA…dbD, direct) → registered source */
  readonly sources: Record<string, string>;
  rows: number;
  totalRows: number;
  fraction: number;
  message: string | null;
  readonly startedAt: string;
  finishedAt: string | null;
}

/**
 * The lab's load form: generates the TPC-H-like data at a scale into registered sources (the
 * JDV layout into four, or all eight tables into one), then re-introspects them so Junction sees
 * the tables. Progress is kept in memory; the form polls it.
 */
export class Loader {
  readonly jobs = new Map<string, LoadJob>();

  constructor(readonly app: FastifyInstance) {}

  async start(principal: Principal, layout: LayoutName, sf: number, sources: Record<string, string>): Promise<LoadJob> {
    const targets = LAYOUTS[layout];
    for (const t of targets)
      if (!sources[t.name])
        throw new JunctionError('benchmark_load_source_missing', 'user', `Choose a registered source for ${t.name}.`, {
          details: { field: `sources.${t.name}` },
        });
    for (const t of targets) await this.app.junction.findSource(sources[t.name]);
    if ([...this.jobs.values()].some((j) => j.status === 'running'))
      throw new JunctionError('benchmark_load_running', 'conflict', 'A load is already running; wait for it to end.');
    const job: LoadJob = {
      id: randomUUID(),
      status: 'running',
      layout,
      sf,
      sources,
      rows: 0,
      totalRows: 0,
      fraction: 0,
      message: null,
      startedAt: new Date().toISOString(),
      finishedAt: null,
    };
    this.jobs.set(job.id, job);
    void this.#run(job, principal).catch(() => undefined);
    return job;
  }

  async #run(job: LoadJob, principal: Principal): Promise<void> {
    const connectors: Connector[] = [];
    const written = new Map<string, number>();
    try {
      const targets: LoadTarget[] = [];
      for (const t of LAYOUTS[job.layout]) {
        const name = job.sources[t.name];
        // the gate lets only an admin load (the route says so too): loading replaces tables
        const connector = await this.app.junction.gate.loader(principal, name, async () =>
          this.app.junction.configOf(await this.app.junction.findSource(name)),
        );
        connectors.push(connector);
        targets.push({ name: t.name, connector, tables: t.tables });
      }
      const totals = new Map<string, number>();
      await loadTpch(targets, {
        sf: job.sf,
        concurrency: 2,
        onProgress: (e) => {
          if (e.kind === 'plan') totals.set(`${e.target}.${e.table}`, e.totalRows);
          else if (e.kind === 'rows') {
            written.set(`${e.target}.${e.table}`, e.rows);
            totals.set(`${e.target}.${e.table}`, e.totalRows);
          } else if (e.kind === 'phase') job.message = `${e.target}: ${e.phase}`;
          else if (e.kind === 'skip') job.message = `${e.target}: already loaded at this scale`;
          job.totalRows = [...totals.values()].reduce((a, b) => a + b, 0);
          job.rows = [...written.values()].reduce((a, b) => a + b, 0);
          job.fraction = job.totalRows ? Math.min(0.99, job.rows / job.totalRows) : 0;
        },
      });
      for (const t of LAYOUTS[job.layout]) {
        const row = await this.app.junction.findSource(job.sources[t.name]);
        await this.app.junction.refreshSource(row.id);
      }
      job.fraction = 1;
      job.status = 'done';
      job.message = 'loaded';
    } catch (e) {
      job.status = 'failed';
      job.message = e instanceof Error ? e.message.slice(0, 500) : String(e);
    } finally {
      job.finishedAt = new Date().toISOString();
      for (const c of connectors) await c.close().catch(() => undefined);
    }
  }
}
