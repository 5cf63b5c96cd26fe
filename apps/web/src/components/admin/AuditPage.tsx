import { useState } from 'react';
import { adminApi, type AuditEntry } from '../../lib/admin-api.js';
import { formatTime } from '../../lib/format-time.js';
import { useAsync } from '../../lib/use-async.js';

// the actions the API records; the filter is a list so nobody has to guess their spelling
const ACTIONS = [
  'auth.login_failed',
  'user.create',
  'user.update',
  'user.delete',
  'user.password_change',
  'grant.create',
  'grant.delete',
  'token.create',
  'token.revoke',
  'source.create',
  'source.update',
  'source.delete',
  'source.refresh',
  'cache.purge',
  'materialization.set',
  'materialization.refresh',
  'materialization.delete',
];

/** `{"role":"viewer","disabled":true}` reads as "role viewer · disabled true". */
export function describeDetails(d: unknown): string {
  if (d === null || d === undefined) return '';
  if (typeof d !== 'object' || Array.isArray(d)) return JSON.stringify(d);
  return Object.entries(d)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(' · ');
}

function matches(e: AuditEntry, text: string): boolean {
  if (!text) return true;
  const t = text.toLowerCase();
  return [e.actorName, e.target, e.ip].some((v) => v?.toLowerCase().includes(t));
}

export function AuditPage() {
  const [action, setAction] = useState('');
  const [text, setText] = useState('');
  const log = useAsync(() => adminApi.audit({ action }), [action]);
  const rows = (log.data ?? []).filter((e) => matches(e, text.trim()));
  return (
    <>
      <h1>Audit log</h1>
      <div className="j-row j-filters" role="search" aria-label="Filter the audit log">
        <label>
          Action{' '}
          <select value={action} onChange={(e) => setAction(e.target.value)}>
            <option value="">any action</option>
            {ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label>
          Who or what{' '}
          <input
            type="search"
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="user, target or IP"
          />
        </label>
        <span className="j-muted j-small">The newest 200 entries{action ? ' of this action' : ''}.</span>
      </div>
      {log.error && (
        <p className="j-error" role="alert">
          Could not load the audit log: {log.error.message}
        </p>
      )}
      {log.loading && !log.data && <p className="j-muted">Loading…</p>}
      {log.data && rows.length === 0 && (
        <p className="j-empty" data-testid="audit-empty">
          Nothing matches these filters.
        </p>
      )}
      {rows.length > 0 && (
        <table className="j-table" aria-label="Audit log">
          <thead>
            <tr>
              <th>When</th>
              <th>Who</th>
              <th>Action</th>
              <th>Target</th>
              <th>Details</th>
              <th>IP</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <tr key={e.id}>
                <td className="j-small j-nowrap">{formatTime(e.createdAt)}</td>
                <td>{e.actorName ?? <span className="j-muted">anonymous</span>}</td>
                <td className="j-mono j-small">{e.action}</td>
                <td>{e.target}</td>
                <td className="j-small">{describeDetails(e.details)}</td>
                <td className="j-small j-muted">{e.ip}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
