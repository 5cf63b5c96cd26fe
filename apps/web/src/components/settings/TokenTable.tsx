import type { Token } from '../../lib/admin-api.js';
import { formatTime } from '../../lib/format-time.js';

/** Tokens with what an owner or an admin needs to judge them: scopes, age, last use, state. */
export function TokenTable({
  label,
  tokens,
  onRevoke,
}: {
  label: string;
  tokens: readonly (Token & { username?: string })[];
  onRevoke(t: Token): void;
}) {
  const owners = tokens.some((t) => t.username !== undefined);
  return (
    <table className="j-table j-table-middle" aria-label={label}>
      <thead>
        <tr>
          {owners && <th>Owner</th>}
          <th>Name</th>
          <th>Starts with</th>
          <th>Scopes</th>
          <th>Created</th>
          <th>Last used</th>
          <th>Expires</th>
          <th>Status</th>
          <th>
            <span className="j-sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {tokens.map((t) => (
          <tr key={t.id} data-testid={`token-${t.name}`}>
            {owners && <td>{t.username}</td>}
            <td>
              <strong>{t.name}</strong>
            </td>
            <td className="j-mono j-small">{t.prefix}…</td>
            <td className="j-small">{t.scopes.join(', ')}</td>
            <td className="j-small j-muted">{formatTime(t.createdAt)}</td>
            <td className="j-small j-muted">{t.lastUsedAt ? formatTime(t.lastUsedAt) : 'never'}</td>
            <td className="j-small j-muted">{t.expiresAt ? formatTime(t.expiresAt) : 'never'}</td>
            <td>
              {t.revokedAt ? (
                <span className="j-status j-status-offline">revoked {formatTime(t.revokedAt)}</span>
              ) : t.expiresAt && Date.parse(t.expiresAt) <= Date.now() ? (
                <span className="j-status j-status-offline">expired</span>
              ) : (
                <span className="j-status j-status-online">active</span>
              )}
            </td>
            <td className="j-actions">
              {!t.revokedAt && (
                <button type="button" className="j-danger" onClick={() => onRevoke(t)}>
                  Revoke
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
