/** Unknown addresses say so instead of quietly showing the Query page. */
export function NotFound() {
  return (
    <main className="j-page j-message-page" data-testid="not-found">
      <h1>Page not found</h1>
      <p>
        There is no page at <code className="j-mono">{location.pathname + location.hash}</code>.
      </p>
      <p>
        <a href="/#/query">Back to Query</a>
      </p>
    </main>
  );
}
