import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { DataRowTap, boolCell, int32Cell, utf8Cell } from './data-rows.js';

/** a backend message: type byte, length (counting itself), body */
function msg(type: string, body: Buffer | string = ''): Buffer {
  const b = typeof body === 'string' ? Buffer.from(body) : body;
  const head = Buffer.alloc(5);
  head[0] = type.charCodeAt(0);
  head.writeUInt32BE(4 + b.length, 1);
  return Buffer.concat([head, b]);
}

/** a DataRow of text cells (null: SQL NULL) */
function dataRow(cells: (string | null)[]): Buffer {
  const parts = [Buffer.from([cells.length >> 8, cells.length & 0xff])];
  for (const c of cells) {
    const len = Buffer.alloc(4);
    len.writeInt32BE(c === null ? -1 : Buffer.byteLength(c));
    parts.push(len);
    if (c !== null) parts.push(Buffer.from(c));
  }
  return msg('D', Buffer.concat(parts));
}

/**
 * pg's side as the tap sees it: a data listener that cuts the bytes into messages, as
 * pg-protocol's parser does, and logs each by type (and its body for a DataRow it had to parse).
 */
function pgParser(log: string[], onMessage: (type: string) => void): (chunk: Buffer) => void {
  let held = Buffer.alloc(0);
  return (chunk) => {
    held = Buffer.concat([held, chunk]);
    while (held.length >= 5 && held.length >= 1 + held.readUInt32BE(1)) {
      const end = 1 + held.readUInt32BE(1);
      const type = String.fromCharCode(held[0]);
      log.push(type === 'D' ? `pg D ${held.subarray(5, end).toString('hex')}` : `pg ${type}`);
      held = held.subarray(end);
      onMessage(type);
    }
  };
}

describe('DataRowTap', () => {
  // one statement's answer, then what the server sends after its ReadyForQuery (the next statement's)
  const first = [msg('1'), msg('2'), msg('T', 'fields'), dataRow(['1', 'a']), dataRow([null, 'é'.repeat(40)]), msg('N', 'notice'), dataRow(['3', '']), msg('C', 'SELECT 3\0'), msg('Z', 'I')];
  const second = [msg('1'), msg('2'), msg('T', 'f2'), dataRow(['42']), msg('C', 'SELECT 1\0'), msg('Z', 'I')];
  const wire = Buffer.concat([...first, ...second]);
  const rowsOf = (ms: Buffer[]): string[] => ms.filter((m) => m[0] === 0x44).map((m) => `row ${m.subarray(5).toString('hex')}`);
  const othersOf = (ms: Buffer[]): string[] => ms.filter((m) => m[0] !== 0x44).map((m) => `pg ${String.fromCharCode(m[0])}`);

  it('takes the DataRows and passes every other message to pg in order, however the reads cut them', () => {
    // every read size from a byte to the whole answer: messages and headers cut anywhere
    for (let size = 1; size <= wire.length; size++) {
      const stream = new EventEmitter();
      const log: string[] = [];
      let taps = 0;
      let tap: DataRowTap | undefined;
      const attach = (): void => {
        const n = ++taps;
        tap = DataRowTap.attach(stream as never, (buf, start, end) => log.push(`row ${buf.subarray(start, end).toString('hex')}`));
        expect(tap, `tap ${n}`).toBeDefined();
      };
      stream.on(
        'data',
        pgParser(log, (type) => {
          // as PortalReader does at ReadyForQuery; pg then submits the next statement, whose reader taps again
          if (type === 'Z') {
            tap?.detach();
            if (taps === 1) attach();
          }
        }),
      );
      attach();
      for (let at = 0; at < wire.length; at += size) stream.emit('data', wire.subarray(at, at + size));
      const expected = [...first, ...second].map((m) => (m[0] === 0x44 ? rowsOf([m])[0] : othersOf([m])[0]));
      expect(log, `reads of ${size} bytes`).toEqual(expected);
      // the second tap gave the socket back too: pg's parser is its only reader again
      expect(stream.listenerCount('data')).toBe(1);
    }
  });

  it('gives pg the part of a message already read when it lets go before the message ends', () => {
    const stream = new EventEmitter();
    const log: string[] = [];
    stream.on('data', pgParser(log, () => undefined));
    const tap = DataRowTap.attach(stream as never, () => log.push('row'))!;
    const row = dataRow(['123']);
    stream.emit('data', row.subarray(0, 3));
    // an error ends the statement (PortalReader detaches at handleError) while a row is cut
    tap.detach();
    stream.emit('data', row.subarray(3));
    expect(log).toEqual([`pg D ${row.subarray(5).toString('hex')}`]);
  });

  it('leaves a socket alone that is not as pg leaves it', () => {
    const stream = new EventEmitter();
    expect(DataRowTap.attach(stream as never, () => undefined)).toBeUndefined();
    stream.on('data', () => undefined);
    stream.on('data', () => undefined);
    expect(DataRowTap.attach(stream as never, () => undefined)).toBeUndefined();
    expect(stream.listenerCount('data')).toBe(2);
  });
});

describe('cell decoders', () => {
  const cell = (s: string): [Buffer, number, number] => {
    const b = Buffer.from(`xx${s}yy`);
    return [b, 2, b.length - 2];
  };
  it('read integers, booleans and text where they lie', () => {
    for (const n of [0, 7, -7, 2147483647, -2147483648, 32767, -32768]) expect(int32Cell(...cell(String(n)))).toBe(n);
    expect(Object.is(int32Cell(...cell('0')), 0)).toBe(true);
    expect([boolCell(...cell('t')), boolCell(...cell('f'))]).toEqual([true, false]);
    expect(utf8Cell(...cell('naïve – 東京 🙂'))).toBe('naïve – 東京 🙂');
    expect(utf8Cell(...cell(''))).toBe('');
  });
});
