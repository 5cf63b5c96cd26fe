#!/usr/bin/env node
// Fails when a file of the repository names a path outside it: a relative path that climbs out
// of the repository, or an absolute path into the folder that holds the clone. On a user's
// machine nothing exists beside the clone, so such a file breaks there and nowhere else.
//   node scripts/self-contained.mjs [root]
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Prose and lock files may mention paths; they are never read as paths. */
const SKIPPED = /(^|\/)(package-lock\.json)$|\.(md|png|jpe?g|gif|ico|woff2?|sqlite|db)$/i;

/** The repository's files: what git tracks plus untracked files it does not ignore. */
function listFiles(root) {
  try {
    const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return out.split('\0').filter(Boolean);
  } catch {
    // not a git checkout (an unpacked archive): every file but dependencies and build output
    const files = [];
    const walk = (dir) => {
      for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
        if (['node_modules', 'dist', '.git', 'data'].includes(e.name)) continue;
        const rel = dir ? `${dir}/${e.name}` : e.name;
        if (e.isDirectory()) walk(rel);
        else if (e.isFile()) files.push(rel);
      }
    };
    walk('');
    return files;
  }
}

/**
 * Every place in `text` (the file `rel` of the repository at `root`) that names a path outside
 * the repository, as { line, path } pairs.
 */
export function outsidePaths(root, rel, text) {
  const found = [];
  const parent = path.dirname(path.resolve(root));
  const fileDir = path.dirname(path.join(root, rel));
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    // a path meant relative to another file says so on its line or the one before
    if (`${lines[i - 1] ?? ''}\n${line}`.includes('self-contained: relative to ')) return;
    for (const m of line.matchAll(/(?<![\w./-])((?:\.\.\/)+[\w.@-]*(?:\/[\w.@-]+)*)/g)) {
      const target = path.resolve(fileDir, m[1]);
      if (path.relative(root, target).startsWith('..')) found.push({ line: i + 1, path: m[1] });
    }
    // beside a clone in the temporary directory lies everything else that uses it: no signal there
    if (parent !== '/' && parent !== path.resolve(os.tmpdir())) {
      for (const m of line.matchAll(/(?<![\w.-])(\/[\w.@-]+(?:\/[\w.@-]+)*)/g)) {
        const p = m[1];
        if ((p === parent || p.startsWith(`${parent}/`)) && !`${p}/`.startsWith(`${path.resolve(root)}/`))
          found.push({ line: i + 1, path: p });
      }
    }
  });
  return found;
}

function main() {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  const problems = [];
  let checked = 0;
  for (const rel of listFiles(root)) {
    if (SKIPPED.test(rel)) continue;
    const file = path.join(root, rel);
    let text;
    try {
      if (statSync(file).size > 2 * 1024 * 1024) continue;
      text = readFileSync(file, 'utf8');
    } catch {
      continue; // deleted in the work tree
    }
    if (text.includes('\0')) continue;
    checked++;
    for (const f of outsidePaths(root, rel, text)) problems.push(`${rel}:${f.line}: ${f.path}`);
  }
  if (problems.length) {
    process.stderr.write(
      `self-contained: ${problems.length} place(s) name a path outside the repository (nothing exists beside a user's clone):\n  ${problems.join('\n  ')}\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`self-contained: ${checked} files name no path outside the repository\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
