import { useState } from 'react';
import type { SourceOptions } from '../../lib/api.js';

/**
 * TLS, pool size and connect timeout, the same fields when registering and editing: a server
 * that only accepts encrypted connections has to be reachable from the first form already.
 */
export function ConnectionOptions({ options }: { options?: SourceOptions }) {
  const [tls, setTls] = useState(!!options?.tls?.enabled);
  return (
    <>
      <label>
        Pool size
        <input
          name="poolMax"
          type="number"
          min={1}
          max={100}
          defaultValue={options?.pool?.max ?? ''}
          placeholder="default"
        />
      </label>
      <label>
        Connect timeout (ms)
        <input
          name="connectTimeoutMs"
          type="number"
          min={1}
          max={600000}
          defaultValue={options?.connectTimeoutMs ?? ''}
          placeholder="default"
        />
      </label>
      <fieldset className="j-scopes j-tls">
        <legend>TLS</legend>
        <label className="j-check">
          <input type="checkbox" name="tls" checked={tls} onChange={(e) => setTls(e.target.checked)} />
          <span>Encrypt the connection</span>
        </label>
        {/* kept in the DOM while TLS is off so what was typed survives a second thought */}
        <label className="j-check" style={tls ? undefined : { display: 'none' }}>
          <input type="checkbox" name="verify" defaultChecked={options?.tls?.rejectUnauthorized !== false} />
          <span>Verify the server certificate</span>
        </label>
        <label className="j-tls-ca" style={tls ? undefined : { display: 'none' }}>
          CA certificate (PEM, for a server with a private CA)
          <textarea
            name="ca"
            rows={3}
            spellCheck={false}
            defaultValue={options?.tls?.ca ?? ''}
            placeholder="-----BEGIN CERTIFICATE-----"
          />
        </label>
      </fieldset>
    </>
  );
}
