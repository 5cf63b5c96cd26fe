import type { ApiError } from '../../lib/api-error.js';

export function ErrorBox({ error }: { error: ApiError }) {
  return (
    <div className="j-error-box" role="alert" data-testid="query-error">
      <div>
        <strong>{error.message}</strong>
      </div>
      <div className="j-muted j-small">
        {error.code}
        {error.position && ` · line ${error.position.line}, column ${error.position.column}`}
      </div>
    </div>
  );
}
