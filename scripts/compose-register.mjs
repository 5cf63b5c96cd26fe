#!/usr/bin/env node
// docker-compose's loader, after `npm run load`: registers the loaded databases as Junction
// sources dbA..dbD and direct, through the REST API as the admin user. Idempotent: a source
// that already exists (409) is left alone.
//   JUNCTION_URL (http://junction:8080), JUNCTION_ADMIN_PASSWORD, JUNCTION_SOURCES (JSON array
//   of source registrations, see docker-compose.yml)
const base = (process.env.JUNCTION_URL || 'http://junction:8080').replace(/\/$/, '');
const password = process.env.JUNCTION_ADMIN_PASSWORD;
const sources = JSON.parse(process.env.JUNCTION_SOURCES || '[]');

if (!password) {
  console.error('compose-register: JUNCTION_ADMIN_PASSWORD is not set');
  process.exit(1);
}

async function waitForHealth() {
  for (let i = 0; i < 120; i++) {
    try {
      const r = await fetch(`${base}/api/v1/health`);
      if (r.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
  throw new Error(`Junction at ${base} did not become healthy`);
}

await waitForHealth();
const login = await fetch(`${base}/api/v1/auth/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ username: 'admin', password }),
});
if (!login.ok) {
  console.error(`compose-register: admin sign-in failed (${login.status}): ${await login.text()}`);
  process.exit(1);
}
const { csrfToken } = await login.json();
const cookie = login.headers
  .getSetCookie()
  .map((c) => c.split(';')[0])
  .join('; ');

let failed = 0;
for (const source of sources) {
  const r = await fetch(`${base}/api/v1/sources`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, 'x-junction-csrf': csrfToken },
    body: JSON.stringify(source),
  });
  if (r.status === 201) console.error(`compose-register: ${source.name} registered`);
  else if (r.status === 409) console.error(`compose-register: ${source.name} already registered`);
  else {
    failed++;
    console.error(`compose-register: ${source.name} failed (${r.status}): ${await r.text()}`);
  }
}
process.exit(failed === 0 ? 0 : 1);
