import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// The API serves the built app from the same origin; in dev, Vite proxies /api to it so
// cookies and CSRF behave exactly as in production.
const apiTarget = process.env.JUNCTION_API_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  resolve: {
    // monaco-editor's exports map only .js files; its stylesheets (codicons) need a direct path
    alias: [
      {
        find: /^monaco-editor-css\/(.*)$/,
        replacement: fileURLToPath(new URL('../../node_modules/monaco-editor/esm/vs/', import.meta.url)) + '$1',
      },
    ],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Monaco is one large lazy chunk by nature; the warning would only be noise.
    chunkSizeWarningLimit: 4096,
  },
  server: {
    port: 5173,
    proxy: { '/api': { target: apiTarget } },
  },
});
