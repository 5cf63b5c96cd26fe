import { useState, type FormEvent } from 'react';
import type { Role } from '../../lib/api.js';
import {
  adminApi,
  LIMIT_FIELDS,
  limitBody,
  type LimitOverride,
  type LimitScope,
  type QueueLimit,
} from '../../lib/admin-api.js';
import { formatTime } from '../../lib/format-time.js';
import { friendlyError } from '../../lib/form-error.js';
import { useAsync } from '../../lib/use-async.js';

const ROLES: readonly Role[] = ['admin', 'analyst', 'viewer'];
const SCOPE_LABEL: Record<LimitOverride['scope'], string> = {
  server: 'Server',
  role: 'Role',
  user: 'User',
  token: 'API token',
};

const show = (v: number | null | undefined) => (v === null || v === undefined ? 'inherits' : v.toLocaleString('en-US'));
const fieldsOf = (o?: Partial<Record<keyof QueueLimit, number | null>>) =>
  Object.fromEntries(LIMIT_FIELDS.map((f) => [f.key, o?.[f.key] == null ? '' : String(o[f.key])])) as Record<
    keyof QueueLimit,
    string
  >;

/** The three numbers of one setting; blank inherits, the placeholder says from what. */
function LimitFields({
  values,
  inherited,
  onChange,
  idPrefix,
}: {
  values: Record<keyof QueueLimit, string>;
  inherited: QueueLimit;
  onChange(v: Record<keyof QueueLimit, string>): void;
  idPrefix: string;
}) {
  return (
    <>
      {LIMIT_FIELDS.map((f) => (
        <label key={f.key} htmlFor={`${idPrefix}-${f.key}`}>
          {f.label}
          <input
            id={`${idPrefix}-${f.key}`}
            type="number"
            min={f.min}
            max={f.max}
            value={values[f.key]}
            placeholder={`${inherited[f.key].toLocaleString('en-US')} (inherited)`}
            onChange={(e) => onChange({ ...values, [f.key]: e.target.value })}
          />
        </label>
      ))}
    </>
  );
}

/**
 * Concurrency limits: the server-wide queue and the settings per role, user or API token. Over a
 * principal's limit a query waits in its own queue, then gets 429; over the server's, 503.
 */
export function LimitsPage() {
  const limits = useAsync(() => adminApi.limits());
  const users = useAsync(() => adminApi.users());
  const tokens = useAsync(() => adminApi.allTokens());
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<string>();
  const [server, setServer] = useState<Record<keyof QueueLimit, string>>();
  const [scope, setScope] = useState<LimitScope>('role');
  const [subject, setSubject] = useState('analyst');
  const [values, setValues] = useState(fieldsOf());
  const [busy, setBusy] = useState(false);

  const d = limits.data;
  const stored = d?.overrides.find((o) => o.scope === 'server');
  const serverFields = server ?? fieldsOf(stored);
  const others = d?.overrides.filter((o) => o.scope !== 'server') ?? [];

  const subjectName = (o: Pick<LimitOverride, 'scope' | 'subject'>) => {
    if (o.scope === 'user') return users.data?.find((u) => u.id === o.subject)?.username ?? o.subject;
    if (o.scope === 'token') {
      const t = tokens.data?.find((x) => x.id === o.subject);
      return t ? `${t.name} (${t.username})` : o.subject;
    }
    return o.subject;
  };

  async function act(what: () => Promise<unknown>, done: string) {
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    try {
      await what();
      setNotice(done);
      limits.reload();
      return true;
    } catch (e) {
      setError(friendlyError(e));
      return false;
    } finally {
      setBusy(false);
    }
  }

  async function saveServer(e: FormEvent) {
    e.preventDefault();
    if (await act(() => adminApi.setServerLimit(limitBody(serverFields)), 'Saved the server-wide limit.'))
      setServer(undefined);
  }

  async function addSetting(e: FormEvent) {
    e.preventDefault();
    const chosen = subject;
    if (!chosen) {
      setError(`Choose the ${scope === 'user' ? 'user' : 'API token'} first.`);
      return;
    }
    const ok = await act(
      () => adminApi.setLimit(scope, chosen, limitBody(values)),
      `Saved the limit of ${SCOPE_LABEL[scope].toLowerCase()} ${subjectName({ scope, subject: chosen })}.`,
    );
    if (ok) setValues(fieldsOf());
  }

  return (
    <>
      <h1>Concurrency limits</h1>
      <p className="j-muted j-intro">
        How many queries run at once. Over a user&apos;s or token&apos;s limit a query waits in its own queue, then is
        refused with 429; over the server&apos;s it waits in the server&apos;s queue, then gets 503. A token with a
        setting of its own counts on its own; otherwise token → user → role → default. Changes apply at once.
      </p>
      {notice && (
        <p className="j-ok" role="status">
          {notice}
        </p>
      )}
      {(error || limits.error) && (
        <p className="j-error" role="alert">
          {error ?? `Could not load the limits: ${limits.error?.message}`}
        </p>
      )}
      {limits.loading && !d && <p className="j-muted">Loading…</p>}
      {d && (
        <>
          <p data-testid="limits-load">
            Now: <strong>{d.running}</strong> running, <strong>{d.queued}</strong> waiting; the server runs at most{' '}
            <strong>{d.server.maxConcurrent.toLocaleString('en-US')}</strong> at once.
          </p>
          <form className="j-card" aria-label="Server-wide limit" onSubmit={(e) => void saveServer(e)}>
            <h2>Server-wide</h2>
            <div className="j-form-grid">
              <LimitFields idPrefix="server" values={serverFields} inherited={d.defaults.server} onChange={setServer} />
            </div>
            <p className="j-muted j-small">
              Blank fields use the environment&apos;s value (JUNCTION_MAX_CONCURRENT and its siblings), shown greyed.
            </p>
            <div className="j-row">
              <button type="submit" className="j-primary" disabled={busy}>
                Save
              </button>
              {stored && (
                <button
                  type="button"
                  disabled={busy}
                  onClick={() =>
                    void act(
                      () => adminApi.clearServerLimit(),
                      'The server-wide limit is the environment’s again.',
                    ).then((ok) => ok && setServer(undefined))
                  }
                >
                  Use the environment’s
                </button>
              )}
            </div>
          </form>

          <h2 className="j-subhead">Per role, user and API token</h2>
          <p className="j-muted j-small">
            Without a setting, each user runs at most {d.defaults.principal.maxConcurrent.toLocaleString('en-US')} at
            once with {d.defaults.principal.maxQueued.toLocaleString('en-US')} waiting for up to{' '}
            {d.defaults.principal.queueTimeoutMs.toLocaleString('en-US')} ms.
          </p>
          {others.length === 0 ? (
            <p className="j-empty" data-testid="limits-empty">
              No setting yet: every user has the default.
            </p>
          ) : (
            <table className="j-table j-compact j-table-middle" aria-label="Limit settings">
              <thead>
                <tr>
                  <th>Applies to</th>
                  {LIMIT_FIELDS.map((f) => (
                    <th key={f.key} className="j-num">
                      {f.label}
                    </th>
                  ))}
                  <th>Changed</th>
                  <th>
                    <span className="j-sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {others.map((o) => (
                  <tr key={`${o.scope}:${o.subject}`} data-testid={`limit-${o.scope}-${subjectName(o)}`}>
                    <td>
                      <span className="j-muted j-small">{SCOPE_LABEL[o.scope]}</span> {subjectName(o)}
                    </td>
                    {LIMIT_FIELDS.map((f) => (
                      <td key={f.key} className={o[f.key] === null ? 'j-num j-muted' : 'j-num'}>
                        {show(o[f.key])}
                      </td>
                    ))}
                    <td className="j-small j-nowrap">{formatTime(o.updatedAt)}</td>
                    <td className="j-actions">
                      <button
                        type="button"
                        className="j-danger"
                        disabled={busy}
                        onClick={() =>
                          void act(
                            () => adminApi.clearLimit(o.scope as LimitScope, o.subject),
                            `Removed the limit of ${SCOPE_LABEL[o.scope].toLowerCase()} ${subjectName(o)}; it inherits again.`,
                          )
                        }
                      >
                        Remove
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <form className="j-card" aria-label="Set a limit" onSubmit={(e) => void addSetting(e)}>
            <h2>Set a limit</h2>
            <div className="j-form-grid">
              <label>
                Applies to
                <select
                  aria-label="Applies to"
                  value={scope}
                  onChange={(e) => {
                    const next = e.target.value as LimitScope;
                    setScope(next);
                    setSubject(next === 'role' ? 'analyst' : '');
                  }}
                >
                  <option value="role">each member of a role</option>
                  <option value="user">a user</option>
                  <option value="token">an API token</option>
                </select>
              </label>
              <label>
                {scope === 'role' ? 'Role' : scope === 'user' ? 'User' : 'API token'}
                <select
                  aria-label={scope === 'role' ? 'Role' : scope === 'user' ? 'User' : 'API token'}
                  value={subject}
                  onChange={(e) => setSubject(e.target.value)}
                >
                  {scope === 'role' &&
                    ROLES.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  {scope === 'user' && (
                    <>
                      <option value="">Choose a user…</option>
                      {users.data?.map((u) => (
                        <option key={u.id} value={u.id}>
                          {u.username}
                        </option>
                      ))}
                    </>
                  )}
                  {scope === 'token' && (
                    <>
                      <option value="">Choose a token…</option>
                      {tokens.data
                        ?.filter((t) => !t.revokedAt)
                        .map((t) => (
                          <option key={t.id} value={t.id}>
                            {t.name} ({t.username})
                          </option>
                        ))}
                    </>
                  )}
                </select>
              </label>
              <LimitFields idPrefix="setting" values={values} inherited={d.defaults.principal} onChange={setValues} />
            </div>
            <div className="j-row">
              <button type="submit" className="j-primary" disabled={busy}>
                Save limit
              </button>
            </div>
          </form>
        </>
      )}
    </>
  );
}
