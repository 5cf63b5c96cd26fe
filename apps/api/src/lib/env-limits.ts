import type { JunctionLimits } from '../services/junction.js';

/** A positive whole number from the environment, or undefined when unset; anything else stops the start. */
function positiveInt(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, not "${raw}"`);
  return n;
}

/** The limits the environment overrides (README, Configuration); the rest keep their defaults. */
export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<JunctionLimits> {
  const out: { -readonly [K in keyof JunctionLimits]?: JunctionLimits[K] } = {};
  const maxJsonBytes = positiveInt(env, 'JUNCTION_MAX_JSON_BYTES');
  if (maxJsonBytes !== undefined) out.maxJsonBytes = maxJsonBytes;
  const perSource = positiveInt(env, 'JUNCTION_SOURCE_SHARE');
  if (perSource !== undefined) out.perSource = perSource;
  return out;
}
