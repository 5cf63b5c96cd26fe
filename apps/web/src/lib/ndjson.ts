/**
 * Incremental NDJSON decoding. Network chunks split lines (and UTF-8 sequences) anywhere,
 * so bytes are decoded in streaming mode and only complete lines are parsed.
 */
export class NdjsonDecoder {
  private readonly text = new TextDecoder('utf-8');
  private pending = '';

  /** Feed one chunk; returns the values of every line the chunk completed. */
  push(chunk: Uint8Array | string): unknown[] {
    this.pending += typeof chunk === 'string' ? chunk : this.text.decode(chunk, { stream: true });
    const out: unknown[] = [];
    let start = 0;
    for (let nl = this.pending.indexOf('\n'); nl !== -1; nl = this.pending.indexOf('\n', start)) {
      const line = this.pending.slice(start, nl);
      start = nl + 1;
      pushLine(line, out);
    }
    this.pending = this.pending.slice(start);
    return out;
  }

  /** The stream ended: a last line without a trailing newline still counts. */
  end(): unknown[] {
    this.pending += this.text.decode();
    const out: unknown[] = [];
    pushLine(this.pending, out);
    this.pending = '';
    return out;
  }
}

function pushLine(line: string, out: unknown[]): void {
  const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (trimmed.trim() === '') return;
  try {
    out.push(JSON.parse(trimmed));
  } catch {
    throw new NdjsonError(`The server sent a line that is not JSON: ${trimmed.slice(0, 80)}`);
  }
}

export class NdjsonError extends Error {
  override readonly name = 'NdjsonError';
}

/**
 * Yields the values of a byte stream, one array per network chunk (possibly empty). A consumer
 * that stops early cancels the stream: only releasing it would leave the response unread, and
 * the server's query paused on backpressure, holding its connection and its slot.
 */
export async function* readNdjson(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown[]> {
  const reader = body.getReader();
  const decoder = new NdjsonDecoder();
  let ended = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const values = decoder.push(value);
      if (values.length > 0) yield values;
    }
    ended = true;
    const rest = decoder.end();
    if (rest.length > 0) yield rest;
  } finally {
    if (!ended) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
