import { useState } from 'react';
import type { User } from '../../lib/api.js';
import { adminApi, type Token } from '../../lib/admin-api.js';
import { friendlyError } from '../../lib/form-error.js';
import { useAsync } from '../../lib/use-async.js';
import { CreateTokenForm } from './CreateTokenForm.js';
import { TokenReveal } from './TokenReveal.js';
import { TokenTable } from './TokenTable.js';

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
        Scripts and tools send a token as <code className="j-mono">Authorization: Bearer &lt;token&gt;</code>. A token
        acts as you, limited to its scopes; it never gets more than your role ({user.role}) allows.
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
        <TokenTable label="My API tokens" tokens={tokens.data} onRevoke={(t) => void revoke(t)} />
      )}
    </>
  );
}
