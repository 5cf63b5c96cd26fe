import { useState } from 'react';
import { adminApi, type Token } from '../../lib/admin-api.js';
import { friendlyError } from '../../lib/form-error.js';
import { useAsync } from '../../lib/use-async.js';
import { TokenTable } from '../settings/TokenTable.js';

/** Everyone's tokens: an admin finds the stale or leaked ones here and revokes them. */
export function AllTokensPage() {
  const tokens = useAsync(() => adminApi.allTokens());
  const [error, setError] = useState<string>();

  const revoke = async (t: Token & { username?: string }) => {
    if (!confirm(`Revoke the token "${t.name}" of ${t.username ?? 'its owner'}? Scripts that use it are refused.`))
      return;
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
      <h1>API tokens of all users</h1>
      <p className="j-muted j-intro">
        Each user creates their own tokens under My account. Revoke any that is no longer used or may have leaked.
      </p>
      {(tokens.error || error) && (
        <p className="j-error" role="alert">
          {error ?? `Could not load the tokens: ${tokens.error?.message}`}
        </p>
      )}
      {tokens.data?.length === 0 && (
        <p className="j-empty" data-testid="all-tokens-empty">
          No user has an API token.
        </p>
      )}
      {!!tokens.data?.length && (
        <TokenTable label="API tokens of all users" tokens={tokens.data} onRevoke={(t) => void revoke(t)} />
      )}
    </>
  );
}
