import { useEffect, useState } from 'react';
import { api, type User } from './lib/api.js';
import { onAuthRequired } from './lib/http.js';
import { Login } from './components/Login.js';
import { Shell } from './components/Shell.js';

export function App() {
  const [user, setUser] = useState<User | null | undefined>(undefined);

  useEffect(() => {
    let live = true;
    api.me().then(
      (u) => live && setUser(u),
      () => live && setUser(null),
    );
    const off = onAuthRequired(() => setUser(null));
    return () => {
      live = false;
      off();
    };
  }, []);

  if (user === undefined) return <div className="j-splash">Loading…</div>;
  if (user === null) return <Login onLogin={setUser} />;
  return (
    <Shell
      user={user}
      onLogout={async () => {
        await api.logout();
        setUser(null);
      }}
    />
  );
}
