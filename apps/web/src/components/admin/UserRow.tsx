import { useState } from 'react';
import type { Role } from '../../lib/api.js';
import { adminApi, type AdminUser } from '../../lib/admin-api.js';
import { friendlyError } from '../../lib/form-error.js';
import { formatTime } from '../../lib/format-time.js';
import { ResetPasswordForm } from './ResetPasswordForm.js';

export function UserRow({
  user,
  isMe,
  onChanged,
  reload,
}: {
  user: AdminUser;
  isMe: boolean;
  onChanged(notice: string): void;
  reload(): void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [resetting, setResetting] = useState(false);

  async function act(f: () => Promise<string>) {
    setBusy(true);
    setError(undefined);
    try {
      onChanged(await f());
      reload();
    } catch (e) {
      setError(friendlyError(e));
    } finally {
      setBusy(false);
    }
  }

  const setRole = (role: Role) =>
    act(async () => {
      await adminApi.updateUser(user.id, { role });
      return `${user.username} is now ${role}.`;
    });
  const toggle = () => {
    const disabling = !user.disabled;
    if (disabling && !confirm(`Disable ${user.username}? They are signed out at once and can no longer sign in.`))
      return;
    void act(async () => {
      await adminApi.updateUser(user.id, { disabled: disabling });
      return `${user.username} is ${disabling ? 'disabled' : 'enabled again'}.`;
    });
  };
  const remove = () => {
    if (!confirm(`Delete ${user.username} for good? Their grants go too. Disabling keeps them in the audit trail.`))
      return;
    void act(async () => {
      await adminApi.deleteUser(user.id);
      return `${user.username} was deleted.`;
    });
  };

  return (
    <tr data-testid={`user-${user.username}`}>
      <td>
        <strong>{user.username}</strong>
        {isMe && <span className="j-badge">you</span>}
      </td>
      <td>
        {/* changing your own role could lock every admin out; the API refuses it too */}
        {isMe ? (
          <span title="You cannot change your own role">{user.role}</span>
        ) : (
          <select
            aria-label={`Role of ${user.username}`}
            value={user.role}
            disabled={busy}
            onChange={(e) => void setRole(e.target.value as Role)}
          >
            <option value="viewer">viewer</option>
            <option value="analyst">analyst</option>
            <option value="admin">admin</option>
          </select>
        )}
      </td>
      <td>
        <span className={user.disabled ? 'j-status j-status-offline' : 'j-status j-status-online'}>
          {user.disabled ? 'disabled' : 'active'}
        </span>
        {error && (
          <div className="j-error j-small" role="alert">
            {error}
          </div>
        )}
        {resetting && (
          <ResetPasswordForm
            username={user.username}
            onDone={(notice) => {
              setResetting(false);
              if (notice) onChanged(notice);
            }}
            reset={(password) => adminApi.updateUser(user.id, { password })}
          />
        )}
      </td>
      <td className="j-small j-muted">{formatTime(user.createdAt)}</td>
      <td className="j-actions">
        {!isMe && (
          <>
            <button type="button" onClick={() => setResetting(true)} disabled={busy || resetting}>
              Reset password
            </button>
            <button type="button" onClick={toggle} disabled={busy}>
              {user.disabled ? 'Enable' : 'Disable'}
            </button>
            <button type="button" className="j-danger" onClick={remove} disabled={busy}>
              Delete
            </button>
          </>
        )}
        {isMe && (
          <a href="#/settings/password" className="j-small">
            Change my password
          </a>
        )}
      </td>
    </tr>
  );
}
