import type { Phase } from './bench-api.js';

/** The same phases, short: a first look in seconds rather than minutes. */
export function shortened(phases: readonly Phase[]): Phase[] {
  return phases.map((p): Phase => {
    switch (p.type) {
      case 'single':
        return { ...p, warmups: 0, repetitions: 2 };
      case 'concurrency': {
        const users = p.users.filter((u) => u <= 4);
        return { ...p, users: users.length ? users : [Math.min(...p.users)], stepSeconds: 2 };
      }
      case 'mix':
        return { ...p, users: Math.min(p.users, 4), durationSeconds: 5 };
      case 'streams':
        return { ...p, users: Math.min(p.users, 4) };
      case 'coldwarm':
        return { ...p, warmPasses: 1 };
    }
  });
}

/** Without a direct target only the federated SQL can run: through Junction, and through Trino where asked. */
export function forTargets(phases: readonly Phase[], hasDirect: boolean): Phase[] {
  if (hasDirect) return [...phases];
  return phases.map((p) => {
    if (p.type !== 'single' && p.type !== 'concurrency') return p;
    const kept = (p.modes ?? []).filter((m) => m === 'federated' || m === 'trino');
    return { ...p, modes: kept.length ? kept : ['federated' as const] };
  });
}
