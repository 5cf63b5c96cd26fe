/** Saves what `href` points at (a data: or blob: URL) as a file named `name`, as a link click would. */
export function saveHref(name: string, href: string): void {
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
}

/** Saves a blob as a file; its object URL is freed once the browser has had time to read it. */
export function saveBlob(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  try {
    saveHref(name, url);
  } finally {
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
