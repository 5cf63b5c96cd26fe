import { useState, type FormEvent } from 'react';
import { api, type Role } from '../../lib/api.js';
import { adminApi, type AdminUser, type NewGrant } from '../../lib/admin-api.js';
import { designerApi } from '../../lib/designer-api.js';
import { friendlyError } from '../../lib/form-error.js';
import { useAsync } from '../../lib/use-async.js';

type Target = 'source' | 'view';
type Privilege = 'read' | 'design';

export function GrantForm({ users, onCreated }: { users: readonly AdminUser[]; onCreated(): void }) {
  const sources = useAsync(() => api.sources());
  const [target, setTarget] = useState<Target>('source');
  // design applies to views only: on a source it would be refused
  const [privilege, setPrivilege] = useState<Privilege>('read');
  const effective: Privilege = target === 'view' ? privilege : 'read';
  // the existing schemas and views to pick from (an admin sees them all); read again on each
  // switch to views, since the designer may have added some since the page opened
  const views = useAsync(() => (target === 'view' ? designerApi.views() : Promise.resolve([])), [target]);
  const schemas = useAsync(() => (target === 'view' ? designerApi.schemas() : Promise.resolve([])), [target]);
  const [viewSchema, setViewSchema] = useState('');
  const inSchema = (views.data ?? []).filter((v) => v.schema.toLowerCase() === viewSchema.trim().toLowerCase());
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  // admins read everything already, so granting to them would only add noise
  const grantees = users.filter((u) => u.role !== 'admin');

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const f = Object.fromEntries([...new FormData(form)].map(([k, v]) => [k, String(v).trim()]));
    const who: NewGrant = f.grantee.startsWith('role:')
      ? { role: f.grantee.slice(5) as Role }
      : { userId: f.grantee.slice(5) };
    const what: NewGrant =
      target === 'source'
        ? { sourceName: f.sourceName }
        : {
            viewSchema: f.viewSchema,
            ...(f.viewName ? { viewName: f.viewName } : {}),
            ...(effective === 'design' ? { privilege: 'design' as const } : {}),
          };
    setBusy(true);
    setError(undefined);
    try {
      await adminApi.createGrant({ ...who, ...what });
      onCreated();
    } catch (err) {
      setError(friendlyError(err, { viewSchema: 'View schema', viewName: 'View name', sourceName: 'Source' }));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="j-card" onSubmit={submit} aria-label="Add a grant">
      <h2>Add a grant</h2>
      <div className="j-form-grid">
        <label>
          Who
          <select name="grantee" defaultValue="role:analyst">
            <option value="role:analyst">every analyst</option>
            <option value="role:viewer">every viewer</option>
            {grantees.map((u) => (
              <option key={u.id} value={`user:${u.id}`}>
                user {u.username} ({u.role})
              </option>
            ))}
          </select>
        </label>
        <label>
          On
          <select aria-label="On" value={target} onChange={(e) => setTarget(e.target.value as Target)}>
            <option value="source">a source</option>
            <option value="view">views</option>
          </select>
        </label>
        {target === 'view' && (
          <label>
            Privilege
            <select value={privilege} onChange={(e) => setPrivilege(e.target.value as Privilege)}>
              <option value="read">read</option>
              <option value="design">design (create, change, delete; not read)</option>
            </select>
          </label>
        )}
        {target === 'source' ? (
          <label>
            Source
            <select name="sourceName" required>
              <option value="*">all sources</option>
              {(sources.data ?? []).map((s) => (
                <option key={s.id} value={s.name}>
                  {s.name}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <>
            <label>
              View schema
              <input
                name="viewSchema"
                required
                pattern="[A-Za-z_][A-Za-z0-9_]*"
                list="grant-view-schemas"
                autoComplete="off"
                value={viewSchema}
                onChange={(e) => setViewSchema(e.target.value)}
                placeholder="pick or type a virtual schema"
              />
              <datalist id="grant-view-schemas">
                {(schemas.data ?? []).map((sc) => (
                  <option key={sc.id} value={sc.name}>
                    {`${sc.views} ${sc.views === 1 ? 'view' : 'views'}`}
                  </option>
                ))}
              </datalist>
            </label>
            <label>
              View name
              <input
                name="viewName"
                pattern="[A-Za-z_][A-Za-z0-9_]*|\*"
                list="grant-view-names"
                autoComplete="off"
                placeholder="empty: every view in the schema"
              />
              <datalist id="grant-view-names">
                {inSchema.map((v) => (
                  <option key={v.id} value={v.name} />
                ))}
              </datalist>
            </label>
            {viewSchema.trim() !== '' && schemas.data && (
              <p className="j-muted j-small" data-testid="grant-view-hint">
                {schemas.data.some((sc) => sc.name.toLowerCase() === viewSchema.trim().toLowerCase())
                  ? inSchema.length === 0
                    ? `${viewSchema.trim()} has no views yet: a grant on the schema covers the ones made later.`
                    : `Views in ${viewSchema.trim()}: ${inSchema.map((v) => v.name).join(', ')}.`
                  : `There is no virtual schema named ${viewSchema.trim()}.`}
              </p>
            )}
          </>
        )}
      </div>
      {error && (
        <p className="j-error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" className="j-primary" disabled={busy}>
        {busy ? 'Granting…' : `Grant ${effective} access`}
      </button>
    </form>
  );
}
