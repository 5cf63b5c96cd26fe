import { useEffect, useState } from 'react';
import { api, type User } from './lib/api.js';
import { onAuthRequired } from './lib/http.js';
import { Login } from './components/Login.js';
import { Shell } from './components/Shell.js';

export function App() {
  const [user, setUser] = useState<User | null | undefined>(undefined);
  const [notice, setNotice] = useState<string>();

  useEffect(() => {
    let live = true;
    api.me().then(
      (u) => live && setUser(u),
      () => live && setUser(null),
    );
    // a 401 while signed in: the session ended (expired, signed out elsewhere, user disabled)
    const off = onAuthRequired(() =>
      setUser((u) => {
        if (u) setNotice('Your session has expired or was ended. Sign in again to continue.');
        return null;
      }),
    );
    return () => {
      live = false;
      off();
    };
  }, []);

  if (user === undefined) return <div className="j-splash">Loading…</div>;
  if (user === null)
    return (
      <Login
        notice={notice}
        onLogin={(u) => {
          setNotice(undefined);
          setUser(u);
        }}
      />
    );
  return (
    <Shell
      user={user}
      onLogout={async () => {
        await api.logout();
        setNotice(undefined);
        setUser(null);
      }}
    />
  );
}
