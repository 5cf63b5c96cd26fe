import type { SourceDetail, SourceOptions, SourcePatch } from './api.js';

/**
 * Edit-form fields → PATCH body: only what changed, so an untouched form sends nothing and a
 * blank password keeps the stored one (it is write-only and never shown).
 */
export function toSourcePatch(d: SourceDetail, f: Record<string, string>): SourcePatch {
  const patch: SourcePatch = {};
  if (d.engine === 'sqlite') {
    if (f.file.trim() !== (d.file ?? '')) patch.file = f.file.trim();
    return patch;
  }
  const text = (k: 'host' | 'database' | 'user') => {
    if (f[k].trim() !== '' && f[k].trim() !== (d[k] ?? '')) patch[k] = f[k].trim();
  };
  text('host');
  text('database');
  text('user');
  if (f.port.trim() !== '' && Number(f.port) !== d.port) patch.port = Number(f.port);
  if (f.password !== '') patch.password = f.password;

  const old = d.options ?? {};
  const { ca: _oldCa, ...oldTls } = old.tls ?? { enabled: false };
  // the form shows the stored CA: what it holds now is the CA (emptied: none)
  const ca = f.ca === undefined ? old.tls?.ca : f.ca.trim() || undefined;
  const tls = { ...oldTls, enabled: f.tls === 'on', rejectUnauthorized: f.verify === 'on', ...(ca ? { ca } : {}) };
  const pool = { ...old.pool, ...(f.poolMax.trim() !== '' ? { max: Number(f.poolMax) } : {}) };
  const timeout = f.connectTimeoutMs.trim() === '' ? undefined : Number(f.connectTimeoutMs);
  const options: SourceOptions = {
    ...old,
    tls,
    ...(Object.keys(pool).length ? { pool } : {}),
    ...(timeout !== undefined ? { connectTimeoutMs: timeout } : {}),
  };
  if (!sameOptions(old, options)) patch.options = options;
  return patch;
}

// "TLS off" and "no TLS settings" are the same thing: not a change worth a PATCH
function sameOptions(a: SourceOptions, b: SourceOptions): boolean {
  const norm = (t: SourceOptions['tls']) =>
    t?.enabled ? JSON.stringify({ e: true, r: t.rejectUnauthorized !== false, ca: t.ca ?? '' }) : 'off';
  return norm(a.tls) === norm(b.tls) && JSON.stringify(withoutTls(a)) === JSON.stringify(withoutTls(b));
}
function withoutTls(o: SourceOptions): SourceOptions {
  const { tls: _tls, ...rest } = o;
  return rest;
}
