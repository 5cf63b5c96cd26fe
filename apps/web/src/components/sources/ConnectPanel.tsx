import { useRef, useState } from 'react';
import { api } from '../../lib/api.js';
import {
  exampleQuery,
  exampleTable,
  exampleVirtualSchema,
  pgConnectStrings,
  quoteIdent,
  type ConnectionInfo,
} from '../../lib/pg-connect.js';
import { useAsync } from '../../lib/use-async.js';

/** One line to copy: the text itself, selectable, and a button that puts it on the clipboard. */
function CopyLine({ label, text, testId }: { label: string; text: string; testId: string }) {
  const ref = useRef<HTMLElement>(null);
  const [state, setState] = useState<'copied' | 'select'>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      // plain HTTP on another host name has no clipboard API: select the text for Ctrl+C instead
      const el = ref.current;
      const sel = window.getSelection();
      if (el && sel) {
        const range = document.createRange();
        range.selectNodeContents(el);
        sel.removeAllRanges();
        sel.addRange(range);
      }
      setState('select');
    }
    setTimeout(() => setState(undefined), 2500);
  };
  return (
    <>
      <span className="j-connect-label">{label}</span>
      <code ref={ref} className="j-connect-code" data-testid={testId} aria-label={label}>
        {text}
      </code>
      <button type="button" onClick={() => void copy()} aria-label={`Copy the ${label}`}>
        {state === 'copied' ? 'Copied' : state === 'select' ? 'Selected: copy it' : 'Copy'}
      </button>
    </>
  );
}

function Enabled({ info }: { info: ConnectionInfo }) {
  const s = pgConnectStrings(info);
  // the first table of the user's own first source; the catalog is only read for this example
  const catalog = useAsync(() => api.catalog());
  const table = exampleTable(catalog.data);
  const virtual = exampleVirtualSchema(catalog.data);
  return (
    <>
      {!info.canQuery && (
        <p className="j-notice" data-testid="connect-no-query">
          Your role can connect but not run SQL there: statements need the query permission, which analysts and admins
          have. Ask an administrator if you need it.
        </p>
      )}
      <div className="j-connect-grid">
        <CopyLine label="psql command" text={s.psql} testId="connect-psql" />
        <CopyLine label="JDBC URL" text={s.jdbc} testId="connect-jdbc" />
        <CopyLine label="libpq URI" text={s.uri} testId="connect-uri" />
      </div>
      <p data-testid="connect-password">
        <strong>Password:</strong> your Junction password, or one of your API tokens (make one under{' '}
        <a href="#/settings/tokens">My account → API tokens</a>).
      </p>
      <p data-testid="connect-schemas">
        In the database <code className="j-mono">{info.pgWire.database}</code> each source is a schema holding its
        tables, and each virtual schema
        {virtual ? (
          <>
            {' '}
            (such as <code className="j-mono">{quoteIdent(virtual)}</code>)
          </>
        ) : null}{' '}
        a schema holding its views. Quote names that have capitals, as here:
      </p>
      <div className="j-connect-grid">
        <CopyLine label="Example query" text={exampleQuery(table)} testId="connect-example" />
      </div>
      {info.pgWire.tls ? (
        <p className="j-muted j-small">
          The listener offers TLS; <code className="j-mono">sslmode=require</code> encrypts without checking the
          certificate. With its CA at hand, <code className="j-mono">sslmode=verify-full sslrootcert=ca.pem</code>{' '}
          checks it too.
        </p>
      ) : (
        <p className="j-muted j-small">
          The listener has no TLS: passwords and results cross the network unencrypted. An administrator turns it on
          with <code className="j-mono">JUNCTION_PG_TLS_CERT</code> and{' '}
          <code className="j-mono">JUNCTION_PG_TLS_KEY</code>.
        </p>
      )}
    </>
  );
}

/**
 * How to reach Junction from psql, JDBC tools and other PostgreSQL clients: the listener's address
 * as the server reports it (GET /connection-info), with the signed-in user's name filled in.
 */
export function ConnectPanel({ onClose }: { onClose(): void }) {
  const info = useAsync(() => api.connectionInfo());
  return (
    <section className="j-card j-connect" aria-label="Connect with psql / JDBC" data-testid="connect-panel">
      <div className="j-row">
        <h2>Connect with psql / JDBC</h2>
        <span className="j-spacer" />
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <p className="j-muted j-intro">
        Junction speaks the PostgreSQL protocol, so psql, JDBC tools, BI clients and PostgreSQL drivers can query your
        sources and views as you, with what you may see here.
      </p>
      {info.error && <p className="j-error">Could not read the connection settings: {info.error.message}</p>}
      {info.loading && !info.data && <p className="j-muted">Loading…</p>}
      {info.data?.pgWire.enabled && <Enabled info={info.data} />}
      {info.data && !info.data.pgWire.enabled && (
        <p className="j-notice" data-testid="connect-disabled">
          The PostgreSQL listener is off on this server. An administrator turns it on by starting Junction with{' '}
          <code className="j-mono">JUNCTION_PG_PORT</code> set to a free port (<code className="j-mono">npm start</code>{' '}
          uses 5433; <code className="j-mono">0</code> turns it off), and offers TLS by also setting{' '}
          <code className="j-mono">JUNCTION_PG_TLS_CERT</code> and <code className="j-mono">JUNCTION_PG_TLS_KEY</code>.
        </p>
      )}
    </section>
  );
}
