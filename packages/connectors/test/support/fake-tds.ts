import net from 'node:net';

/**
 * Just enough of a SQL Server (TDS 7.4, no TLS) for tedious to log in and read result sets,
 * so the SQL Server connector's streaming, cancel and grace paths can be tested on a machine
 * where no SQL Server can run. What it does not do is checked by tedious itself: it accepts
 * LOGIN7 from anyone, answers tedious's initial SQL batch with DONE, and answers every RPC
 * (tedious's sp_executesql) as `reply(statementText)` says, always with two columns,
 * `id INT` and `txt NVARCHAR(200)`.
 *
 * Formats follow [MS-TDS] and tedious's parsers (lib/token/*-parser.js, lib/prelogin-payload.js).
 */
export interface FakeReply {
  /** rows sent after COLMETADATA */
  readonly rows: number;
  /** characters of `txt` in each row (at most 200) */
  readonly width?: number;
  /** rows per TDS packet; each packet holds whole tokens */
  readonly rowsPerPacket?: number;
  /** pause between packets of rows; 0 writes as fast as the client's socket takes them */
  readonly paceMs?: number;
  /** after the rows: end the response (DONE), or leave it open as a statement that runs on */
  readonly then?: 'done' | 'hang';
  /** ATTENTION: end the response and acknowledge (DONE_ATTN), or never answer again */
  readonly attention?: 'ack' | 'ignore';
  /** how long a server busy stopping its statement takes to acknowledge */
  readonly ackDelayMs?: number;
}

export interface FakeTds {
  readonly port: number;
  /** how each statement is answered, chosen from its text */
  reply: (sql: string) => FakeReply;
  readonly stats: {
    /** connections accepted */
    accepted: number;
    /** connections whose socket closed */
    closed: number;
    attentions: number;
    /** statement texts in arrival order */
    statements: string[];
    /** rows of the statement now (or last) answered that went into the socket */
    rowsWritten: number;
    /** times a write of rows met a full socket and waited for 'drain' */
    stalls: number;
  };
  close(): Promise<void>;
}

const PACKET = { SQL_BATCH: 0x01, RPC: 0x03, REPLY: 0x04, ATTENTION: 0x06, LOGIN7: 0x10, PRELOGIN: 0x12 } as const;
const EOM = 0x01;
const IGNORE = 0x02;
const PACKET_SIZE = 4096;
const HEADER = 8;
const DONE_COUNT = 0x0010;
const DONE_ATTN = 0x0020;
// Latin1_General_CI_AS: LCID 0x0409, flags 0xD0, sort id 0x34
const COLLATION = Buffer.from([0x09, 0x04, 0xd0, 0x00, 0x34]);

function bVarChar(s: string): Buffer {
  const b = Buffer.from(s, 'utf16le');
  return Buffer.concat([Buffer.from([s.length]), b]);
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

function packet(payload: Buffer, last: boolean, id: number): Buffer {
  const h = Buffer.alloc(HEADER);
  h.writeUInt8(PACKET.REPLY, 0);
  h.writeUInt8(last ? EOM : 0, 1);
  h.writeUInt16BE(payload.length + HEADER, 2);
  h.writeUInt16BE(0, 4); // spid
  h.writeUInt8(id & 0xff, 6);
  return Buffer.concat([h, payload]);
}

function done(status: number, rowCount = 0): Buffer {
  const b = Buffer.alloc(13);
  b.writeUInt8(0xfd, 0);
  b.writeUInt16LE(status, 1);
  b.writeUInt16LE(0xc1, 3); // curCmd: SELECT
  b.writeBigUInt64LE(BigInt(rowCount), 5);
  return b;
}

function envChange(type: number, next: string, old: string): Buffer {
  const body = Buffer.concat([Buffer.from([type]), bVarChar(next), bVarChar(old)]);
  return Buffer.concat([Buffer.from([0xe3]), u16(body.length), body]);
}

function preloginReply(): Buffer {
  // VERSION and ENCRYPTION options, terminator, then their data; offsets count from the payload start
  const head = 2 * 5 + 1;
  const b = Buffer.alloc(head + 6 + 1);
  b.writeUInt8(0x00, 0);
  b.writeUInt16BE(head, 1);
  b.writeUInt16BE(6, 3);
  b.writeUInt8(0x01, 5);
  b.writeUInt16BE(head + 6, 6);
  b.writeUInt16BE(1, 8);
  b.writeUInt8(0xff, 10);
  b.writeUInt8(16, head); // version 16.0.0.0
  b.writeUInt8(0x02, head + 6); // ENCRYPT_NOT_SUP: the whole session in clear text
  return b;
}

function loginReply(): Buffer {
  const ack = Buffer.concat([
    Buffer.from([1]), // interface SQL_TSQL
    Buffer.from([0x74, 0x00, 0x00, 0x04]), // TDS 7.4, big-endian
    bVarChar('Fake TDS'),
    Buffer.from([16, 0, 0, 0]),
  ]);
  return Buffer.concat([
    Buffer.from([0xad]),
    u16(ack.length),
    ack,
    envChange(1, 'junction', 'master'),
    envChange(4, String(PACKET_SIZE), String(PACKET_SIZE)),
    done(0),
  ]);
}

function colMetadata(width: number): Buffer {
  return Buffer.concat([
    Buffer.from([0x81]),
    u16(2),
    u32(0), // user type
    u16(0x0001), // nullable
    Buffer.from([0x26, 4]), // INTN(4)
    bVarChar('id'),
    u32(0),
    u16(0x0001),
    Buffer.from([0xe7]), // NVARCHAR(width)
    u16(width * 2),
    COLLATION,
    bVarChar('txt'),
  ]);
}

function row(id: number, width: number): Buffer {
  const text = Buffer.from(`row ${id} `.padEnd(width, 'x').slice(0, width), 'utf16le');
  const b = Buffer.alloc(1 + 1 + 4 + 2);
  b.writeUInt8(0xd1, 0);
  b.writeUInt8(4, 1);
  b.writeInt32LE(id, 2);
  b.writeUInt16LE(text.length, 6);
  return Buffer.concat([b, text]);
}

/** The text of sp_executesql's first parameter (@statement, NVARCHAR, maybe PLP). */
export function statementOf(rpc: Buffer): string {
  let o = rpc.readUInt32LE(0); // ALL_HEADERS: its total length includes this field
  if (rpc.readUInt16LE(o) === 0xffff) o += 4;
  else o += 2 + rpc.readUInt16LE(o) * 2;
  o += 2; // option flags
  o += 1 + rpc.readUInt8(o) * 2; // parameter name
  o += 1; // status
  if (rpc.readUInt8(o) !== 0xe7) return '';
  const max = rpc.readUInt16LE(o + 1);
  o += 1 + 2 + 5;
  if (max !== 0xffff) return rpc.toString('utf16le', o + 2, o + 2 + rpc.readUInt16LE(o));
  o += 8; // PLP total length
  const parts: Buffer[] = [];
  for (;;) {
    const n = rpc.readUInt32LE(o);
    o += 4;
    if (n === 0) break;
    parts.push(rpc.subarray(o, o + n));
    o += n;
  }
  return Buffer.concat(parts).toString('utf16le');
}

export async function startFakeTds(reply: (sql: string) => FakeReply = () => ({ rows: 1 })): Promise<FakeTds> {
  const sockets = new Set<net.Socket>();
  const fake: FakeTds = {
    port: 0,
    reply,
    stats: { accepted: 0, closed: 0, attentions: 0, statements: [], rowsWritten: 0, stalls: 0 },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const server = net.createServer((socket) => {
    fake.stats.accepted++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      fake.stats.closed++;
    });
    let packetId = 1;
    let inbound = Buffer.alloc(0);
    let message: Buffer[] = [];
    /** the response now being written, if any */
    let open: { stopped: boolean; attention: 'ack' | 'ignore'; ackDelayMs: number } | undefined;
    let deaf = false;

    const write = (payload: Buffer, last: boolean): boolean => {
      if (deaf || socket.destroyed) return true;
      return socket.write(packet(payload, last, packetId++));
    };
    const writeMessage = (payload: Buffer): void => {
      for (let o = 0; o < payload.length || o === 0; o += PACKET_SIZE - HEADER) {
        const end = Math.min(payload.length, o + PACKET_SIZE - HEADER);
        write(payload.subarray(o, end), end === payload.length);
        if (end === payload.length) break;
      }
    };

    const answer = async (sql: string): Promise<void> => {
      const r = fake.reply(sql);
      const width = Math.min(200, r.width ?? 20);
      const perPacket = Math.max(
        1,
        Math.min(r.rowsPerPacket ?? 16, Math.floor((PACKET_SIZE - HEADER) / (8 + width * 2))),
      );
      const me = { stopped: false, attention: r.attention ?? 'ack', ackDelayMs: r.ackDelayMs ?? 0 };
      open = me;
      fake.stats.rowsWritten = 0;
      write(colMetadata(width), false);
      let sent = 0;
      while (sent < r.rows && !me.stopped) {
        const n = Math.min(perPacket, r.rows - sent);
        const rows = Buffer.concat(Array.from({ length: n }, (_, i) => row(sent + i + 1, width)));
        const ok = write(rows, false);
        sent += n;
        fake.stats.rowsWritten = sent;
        if (!ok) {
          fake.stats.stalls++;
          await new Promise<void>((resolve) => {
            socket.once('drain', resolve);
            socket.once('close', resolve);
          });
        }
        if (r.paceMs) await new Promise((resolve) => setTimeout(resolve, r.paceMs));
        if (socket.destroyed) return;
      }
      if (me.stopped || r.then === 'hang') return;
      open = undefined;
      write(done(DONE_COUNT, sent), true);
    };

    const onMessage = (type: number, status: number, payload: Buffer): void => {
      switch (type) {
        case PACKET.PRELOGIN:
          writeMessage(preloginReply());
          return;
        case PACKET.LOGIN7:
          writeMessage(loginReply());
          return;
        case PACKET.SQL_BATCH:
          // tedious's initial SET options
          writeMessage(done(0));
          return;
        case PACKET.RPC: {
          if (status & IGNORE) {
            // the client gave up on the request while sending it
            writeMessage(done(0));
            return;
          }
          const sql = statementOf(payload);
          fake.stats.statements.push(sql);
          void answer(sql);
          return;
        }
        case PACKET.ATTENTION: {
          fake.stats.attentions++;
          const cur = open;
          if (cur?.attention === 'ignore') {
            // a frozen server: nothing more, not even the rest of the response
            cur.stopped = true;
            deaf = true;
            return;
          }
          const acknowledge = (): void => {
            if (cur) {
              open = undefined;
              // the cancelled response ends here; the acknowledgement is a message of its own
              write(done(0), true);
            }
            writeMessage(done(DONE_ATTN));
          };
          if (cur) cur.stopped = true;
          if (cur?.ackDelayMs) setTimeout(acknowledge, cur.ackDelayMs);
          else acknowledge();
          return;
        }
        default:
          writeMessage(done(0));
      }
    };

    socket.on('data', (chunk: Buffer) => {
      inbound = Buffer.concat([inbound, chunk]);
      while (inbound.length >= HEADER) {
        const len = inbound.readUInt16BE(2);
        if (inbound.length < len) break;
        const type = inbound[0]!;
        const status = inbound[1]!;
        message.push(inbound.subarray(HEADER, len));
        inbound = inbound.subarray(len);
        if (status & EOM) {
          const payload = Buffer.concat(message);
          message = [];
          onMessage(type, status, payload);
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (fake as { port: number }).port = (server.address() as net.AddressInfo).port;
  return fake;
}
