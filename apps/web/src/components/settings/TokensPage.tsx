import { useState } from 'react';
import type { User } from '../../lib/api.js';
import { adminApi, type Token } from '../../lib/admin-api.js';
import { friendlyError } from '../../lib/form-error.js';
import { formatTime } from '../../lib/format-time.js';
import { useAsync } from '../../lib/use-async.js';
import { CreateTokenForm } from './CreateTokenForm.js';
import { TokenReveal } from './TokenReveal.js';

export function TokensPage({ user }: { user: User }) {
  const tokens = useAsync(() => adminApi.tokens());
  const [created, setCreated] = useState<{ name: string; token: string }>();
  const [error, setError] = useState<string>();

  const revoke = async (t: Token) => {
    if (!confirm(`Revoke the token "${t.name}"? Scripts that use it are refused from now on.`)) return;
    setError(undefined);
    try {
      await adminApi.revokeToken(t.id);
      tokens.reload();
    } catch (e) {
      setError(friendlyError(e));
    }
  };

  return (
    <>
      <h1>API tokens</h1>
      <p className="j-muted j-intro">
        Scripts and tools send a token as <code className="j-mono">Authorization: Bearer …</code>. A token acts as you,
        limited to its scopes; it never gets more than your role ({user.role}) allows.
      </p>
      {created ? (
        <TokenReveal {...created} onDone={() => setCreated(undefined)} />
      ) : (
        <CreateTokenForm
          role={user.role}
          onCreated={(t) => {
            setCreated({ name: t.name, token: t.token });
            tokens.reload();
          }}
        />
      )}
      {(tokens.error || error) && (
        <p className="j-error" role="alert">
          {error ?? `Could not load your tokens: ${tokens.error?.message}`}
        </p>
      )}
      {/* the list reloads right after a creation: no "no tokens" flash under the new one */}
      {tokens.data?.length === 0 && !created && (
        <p className="j-empty" data-testid="tokens-empty">
          You have no API tokens.
        </p>
      )}
      {!!tokens.data?.length && (
        <table className="j-table j-table-middle" aria-label="My API tokens">
          <thead>
            <tr>
              <th>Name</th>
              <th>Starts with</th>
              <th>Scopes</th>
              <th>Created</th>
              <th>Last used</th>
              <th>Status</th>
              <th>
                <span className="j-sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.data.map((t) => (
              <tr key={t.id} data-testid={`token-${t.name}`}>
                <td>
                  <strong>{t.name}</strong>
                </td>
                <td className="j-mono j-small">{t.prefix}…</td>
                <td className="j-small">{t.scopes.join(', ')}</td>
                <td className="j-small j-muted">{formatTime(t.createdAt)}</td>
                <td className="j-small j-muted">{t.lastUsedAt ? formatTime(t.lastUsedAt) : 'never'}</td>
                <td>
                  {t.revokedAt ? (
                    <span className="j-status j-status-offline">revoked {formatTime(t.revokedAt)}</span>
                  ) : (
                    <span className="j-status j-status-online">active</span>
                  )}
                </td>
                <td className="j-actions">
                  {!t.revokedAt && (
                    <button type="button" className="j-danger" onClick={() => void revoke(t)}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
