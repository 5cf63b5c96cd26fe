import type { FastifyInstance } from 'fastify';
import { JunctionError } from '@junction/connectors';
import type { AccessPolicy } from '@junction/query-core';
import type { Definition, Mode, Phase } from './definition.js';

/** Whether the lab may offer and run the `trino` mode; null: no Trino is configured at all. */
export interface LabTrino {
  readonly available: boolean;
  /** why it is not available, when it is not */
  readonly message: string | null;
}

/** The lab asks nothing of the sources Trino reads: a policy that reads none keeps that list empty. */
const NO_SOURCES: AccessPolicy = { canReadSource: () => false, canReadView: () => false };

/** What GET /api/v1/engines says of Trino, as the lab needs it (plugins/trino.ts; null: not configured). */
export function labTrino(app: FastifyInstance): LabTrino | null {
  const info = app.trino?.info(NO_SOURCES);
  return info ? { available: info.available, message: info.message } : null;
}

/** The modes a phase runs when it names none (bench-lab/phases: single and concurrency, the others). */
export function modesOf(phase: Phase): Mode[] {
  switch (phase.type) {
    case 'single':
      return phase.modes ?? ['direct', 'federated'];
    case 'concurrency':
      return phase.modes ?? ['federated'];
    case 'mix':
    case 'streams':
      return [phase.mode ?? 'federated'];
    case 'coldwarm':
      // it measures Junction's caches: always through Junction itself
      return ['federated'];
  }
}

/** The queries some phase runs on Trino: the answer checks compare those with the direct rows too. */
export function trinoQueries(def: Definition): Set<string> {
  const ids = new Set<string>();
  for (const p of def.phases) {
    if (!modesOf(p).includes('trino')) continue;
    for (const id of p.type === 'concurrency' ? [p.query] : (p.queries ?? def.queries.map((q) => q.id))) ids.add(id);
  }
  return ids;
}

/**
 * Refuses a definition whose phases run on Trino when Trino is not there to run them, before
 * any run: every one of its executions would fail the same way. 400 trino_not_configured (as
 * POST /query answers), or 503 trino_unavailable with the backend's message.
 */
export function refuseTrinoModes(def: Definition, trino: LabTrino | null): void {
  const phases = def.phases.filter((p) => modesOf(p).includes('trino'));
  if (!phases.length || trino?.available) return;
  const names = phases.map((p) => `"${p.label ?? p.type}"`).join(', ');
  if (!trino)
    throw new JunctionError(
      'trino_not_configured',
      'user',
      `No Trino backend is configured on this server, and phase${phases.length > 1 ? 's' : ''} ${names} run${phases.length > 1 ? '' : 's'} queries through Trino: remove the trino mode, or configure Trino (JUNCTION_TRINO_URL).`,
      { details: { field: 'phases' } },
    );
  throw new JunctionError(
    'trino_unavailable',
    'resources',
    `Trino cannot run queries now${trino.message ? ` (${trino.message})` : ''}, and phase${phases.length > 1 ? 's' : ''} ${names} run${phases.length > 1 ? '' : 's'} queries through it.`,
    { details: { field: 'phases' } },
  );
}
