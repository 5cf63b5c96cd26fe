import { useState } from 'react';
import { adminApi, type AdminUser, type Grant } from '../../lib/admin-api.js';
import { friendlyError } from '../../lib/form-error.js';
import { formatTime } from '../../lib/format-time.js';
import { useAsync } from '../../lib/use-async.js';
import { GrantForm } from './GrantForm.js';

function grantee(g: Grant, users: readonly AdminUser[]): string {
  if (g.role) return `every ${g.role}`;
  return `user ${users.find((u) => u.id === g.userId)?.username ?? g.userId ?? '?'}`;
}
function object(g: Grant): string {
  if (g.sourceName === '*') return 'all sources';
  if (g.sourceName) return `source ${g.sourceName}`;
  return g.viewName ? `view ${g.viewSchema}.${g.viewName}` : `every view in ${g.viewSchema}`;
}

export function GrantsPage() {
  const grants = useAsync(() => adminApi.grants());
  const users = useAsync(() => adminApi.users());
  const [error, setError] = useState<string>();

  const revoke = async (g: Grant) => {
    if (!confirm(`Revoke ${g.privilege} access of ${grantee(g, users.data ?? [])} to ${object(g)}?`)) return;
    setError(undefined);
    try {
      await adminApi.deleteGrant(g.id);
      grants.reload();
    } catch (e) {
      setError(friendlyError(e));
    }
  };

  return (
    <>
      <h1>Grants</h1>
      <p className="j-muted j-intro">
        Admins read and design everything. Analysts and viewers read only the sources and views granted to their role or
        to them by name; a view reads its sources with its own grant, so whoever may read a view reads what it exposes.
        Analysts create, change and delete views only in schemas where they hold a design grant (which does not include
        read). A grant names a source, schema or view that exists.
      </p>
      <GrantForm users={users.data ?? []} onCreated={grants.reload} />
      {(grants.error ?? users.error) && (
        <p className="j-error" role="alert">
          Could not load the grants: {(grants.error ?? users.error)?.message}
        </p>
      )}
      {error && (
        <p className="j-error" role="alert">
          {error}
        </p>
      )}
      {grants.data?.length === 0 && (
        <p className="j-empty" data-testid="grants-empty">
          No grants yet: analysts and viewers see no source or view. Add one above.
        </p>
      )}
      {!!grants.data?.length && (
        <table className="j-table j-table-middle" aria-label="Grants">
          <thead>
            <tr>
              <th>Who</th>
              <th>Privilege</th>
              <th>On</th>
              <th>Since</th>
              <th>
                <span className="j-sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {grants.data.map((g) => (
              <tr key={g.id}>
                <td>{grantee(g, users.data ?? [])}</td>
                <td>{g.privilege}</td>
                <td>{object(g)}</td>
                <td className="j-small j-muted">{formatTime(g.createdAt)}</td>
                <td className="j-actions">
                  <button type="button" className="j-danger" onClick={() => void revoke(g)}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
