import { useEffect, useState } from 'react';
import { api, type User } from '../../lib/api.js';
import { notifyCatalogChanged } from '../../lib/catalog-events.js';
import { pollWhileVisible } from '../../lib/source-status.js';
import { useAsync } from '../../lib/use-async.js';
import { ConnectPanel } from './ConnectPanel.js';
import { SourceForm } from './SourceForm.js';
import { SourceRow } from './SourceRow.js';

export function SourcesPage({ user }: { user: User }) {
  const sources = useAsync(() => api.sources());
  const [adding, setAdding] = useState(false);
  const [connecting, setConnecting] = useState(false);
  const isAdmin = user.role === 'admin';
  // the server re-tests every source in the background; re-reading the list shows what it found
  const { reload } = sources;
  useEffect(() => pollWhileVisible(reload), [reload]);
  return (
    <main className="j-page">
      <div className="j-row">
        <h1>Sources</h1>
        <span className="j-spacer" />
        {/* every role: psql and JDBC reach what the user may query here, as that user */}
        {!connecting && (
          <button type="button" onClick={() => setConnecting(true)}>
            Connect with psql / JDBC
          </button>
        )}
        {isAdmin && !adding && (
          <button type="button" className="j-primary" onClick={() => setAdding(true)}>
            Register source
          </button>
        )}
      </div>
      {connecting && <ConnectPanel onClose={() => setConnecting(false)} />}
      {adding && (
        <SourceForm
          onCreated={() => {
            setAdding(false);
            notifyCatalogChanged();
            sources.reload();
          }}
          onClose={() => setAdding(false)}
        />
      )}
      {sources.error && <p className="j-error">{sources.error.message}</p>}
      <table className="j-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Engine</th>
            {/* where a source lives is an admin's business, not a viewer's */}
            {isAdmin && <th>Connection</th>}
            <th>Status</th>
            {isAdmin && (
              <th>
                <span className="j-sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {(sources.data ?? []).map((s) => (
            <SourceRow key={s.id} source={s} isAdmin={isAdmin} onChanged={sources.reload} />
          ))}
        </tbody>
      </table>
      {sources.data?.length === 0 && <p className="j-muted">No sources registered.</p>}
    </main>
  );
}
