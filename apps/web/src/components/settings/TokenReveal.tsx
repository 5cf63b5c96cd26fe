import { useState } from 'react';

/** The server keeps only a hash: this is the one moment the token can be seen. */
export function TokenReveal({ name, token, onDone }: { name: string; token: string; onDone(): void }) {
  const [copied, setCopied] = useState<boolean>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token);
      setCopied(true);
    } catch {
      // an insecure origin or a denied permission: the field stays selectable by hand
      setCopied(false);
    }
  };
  return (
    <section className="j-card j-reveal" aria-label="New token" data-testid="token-reveal">
      <h2>Token “{name}” created</h2>
      <p>
        <strong>Copy it now: it is shown only this once.</strong> Junction stores only a fingerprint of it, so it cannot
        be shown again; if it gets lost, revoke it and create another.
      </p>
      <div className="j-row">
        <input
          className="j-mono j-token"
          readOnly
          value={token}
          aria-label="The new token"
          data-testid="new-token"
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" className="j-primary" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p role="status" className="j-small">
        {copied === true && <span className="j-ok">Copied to the clipboard.</span>}
        {copied === false && (
          <span className="j-error">The browser refused the clipboard: select the text and copy it.</span>
        )}
      </p>
      <button type="button" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}
