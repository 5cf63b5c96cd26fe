import { useState } from 'react';
import type { User } from '../../lib/api.js';
import { adminApi } from '../../lib/admin-api.js';
import { useAsync } from '../../lib/use-async.js';
import { CreateUserForm } from './CreateUserForm.js';
import { UserRow } from './UserRow.js';

export function UsersPage({ me }: { me: User }) {
  const users = useAsync(() => adminApi.users());
  const [adding, setAdding] = useState(false);
  const [notice, setNotice] = useState<string>();
  return (
    <>
      <div className="j-row">
        <h1>Users</h1>
        <span className="j-spacer" />
        {!adding && (
          <button type="button" className="j-primary" onClick={() => setAdding(true)}>
            Create user
          </button>
        )}
      </div>
      <p className="j-muted j-intro">
        Admins manage sources, users and grants; analysts query and design views; viewers run saved queries and views.
        Which sources and views a non-admin can read is set on the Grants page.
      </p>
      {adding && (
        <CreateUserForm
          onCreated={(u) => {
            setAdding(false);
            setNotice(`Created ${u.username} (${u.role}).`);
            users.reload();
          }}
          onClose={() => setAdding(false)}
        />
      )}
      {notice && (
        <p className="j-ok" role="status">
          {notice}
        </p>
      )}
      {users.error && (
        <p className="j-error" role="alert">
          Could not load the users: {users.error.message}
        </p>
      )}
      {users.loading && !users.data && <p className="j-muted">Loading users…</p>}
      {users.data && (
        <table className="j-table j-table-middle" aria-label="Users">
          <thead>
            <tr>
              <th>User</th>
              <th>Role</th>
              <th>Status</th>
              <th>Created</th>
              <th>
                <span className="j-sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.data.map((u) => (
              <UserRow key={u.id} user={u} isMe={u.id === me.id} onChanged={setNotice} reload={users.reload} />
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
