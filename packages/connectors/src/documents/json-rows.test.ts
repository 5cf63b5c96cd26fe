import { describe, expect, it } from 'vitest';
import { compileJsonPath, evaluateColumnPath, jsonText, type JsonValue } from './json-path.js';
import { jsonLimits, jsonRows } from './json-rows.js';

async function rows(text: string | string[], rowPath: string, columns: string[]): Promise<(string | undefined)[][]> {
  const chunks = (Array.isArray(text) ? text : [text]).map((s) => Buffer.from(s, 'utf8'));
  const input = (async function* () {
    yield* chunks;
  })();
  const cols = columns.map((c) => compileJsonPath(c, 'column path'));
  const out: (string | undefined)[][] = [];
  for await (const b of jsonRows(input, compileJsonPath(rowPath, 'row path'), 'test.json'))
    for (const r of b as JsonValue[])
      out.push(
        cols.map((c) => {
          const v = evaluateColumnPath(c, r);
          return v === undefined ? undefined : jsonText(v);
        }),
      );
  return out;
}

const DOC = `{
  "bank": "B1",
  "accounts": [
    {"id": 1, "balance": {"amount": 1909572716.10, "currency": "EUR"}, "tags": ["a", "b"], "open": true},
    {"id": 2, "balance": {"amount": -0.50}, "tags": [], "owner": null},
    {"id": 3, "note": "x\\ny \\"q\\" \\u00e9"}
  ]
}`;

describe('jsonRows', () => {
  it('reads nested members, array elements and missing fields, numbers exactly as written', async () => {
    expect(
      await rows(DOC, '$.accounts[*]', [
        '$.id',
        '$.balance.amount',
        '$.balance.currency',
        '$.tags[0]',
        '$.owner',
        '$.note',
        '$.tags',
        '$.balance',
      ]),
    ).toEqual([
      [
        '1',
        '1909572716.10',
        '"EUR"',
        '"a"',
        undefined,
        undefined,
        '["a","b"]',
        '{"amount":1909572716.10,"currency":"EUR"}',
      ],
      ['2', '-0.50', undefined, undefined, 'null', undefined, '[]', '{"amount":-0.50}'],
      ['3', undefined, undefined, undefined, undefined, '"x\\ny \\"q\\" é"', undefined, undefined],
    ]);
  });

  it('reads a top-level array over several lines through the tokenizer, split into chunks anywhere', async () => {
    const text = '[\n{"a": 1.000},\n {"a": "twé"},\n {"b": 3}\n]';
    const bytes = Buffer.from(text, 'utf8');
    const out: string[][] = [];
    const input = (async function* () {
      for (let i = 0; i < bytes.length; i += 3) yield bytes.subarray(i, i + 3);
    })();
    for await (const b of jsonRows(input, compileJsonPath('$[*]', 'row path'), 'a.json'))
      out.push(...b.map((r) => [jsonText(r)]));
    expect(out).toEqual([['{"a":1.000}'], ['{"a":"twé"}'], ['{"b":3}']]);
  });

  it('reads newline-delimited documents, each line a document', async () => {
    const text = '{"id": 1, "v": 10.50}\n\n{"id": 2, "v": 1e3}\n{"id": 3}\n';
    expect(await rows([text.slice(0, 7), text.slice(7)], '$', ['$.id', '$.v'])).toEqual([
      ['1', '10.50'],
      ['2', '1e3'],
      ['3', undefined],
    ]);
    expect(await rows('{"items": [{"x": 1}, {"x": 2}]}\n{"items": [{"x": 3}]}', '$.items[*]', ['$.x'])).toEqual([
      ['1'],
      ['2'],
      ['3'],
    ]);
  });

  it("reads '$..name' rows at any depth, an array under the name giving one row per element", async () => {
    const text = `{"Customer": {"Accounts": {"Account": [{"id": "a1"}, {"id": "a2"}]}, "Other": {"Account": {"id": "a3"}}}}`;
    expect(await rows(text, '$..Account', ['$.id'])).toEqual([['"a1"'], ['"a2"'], ['"a3"']]);
    // the same document over several lines goes through the tokenizer
    const pretty = JSON.stringify(JSON.parse(text), null, 2);
    expect(await rows(pretty, '$..Account', ['$.id'])).toEqual([['"a1"'], ['"a2"'], ['"a3"']]);
  });

  it('refuses a broken document with its name', async () => {
    await expect(rows('[{"a": 1}, {"a": ]', '$[*]', ['$.a'])).rejects.toMatchObject({
      code: 'document_parse_error',
      message: expect.stringMatching(/^The JSON document test\.json cannot be read: /),
    });
    await expect(rows('{"a": 1}\n{"a": }\n', '$', ['$.a'])).rejects.toMatchObject({
      code: 'document_parse_error',
      message: expect.stringMatching(/^The JSON document test\.json cannot be read: line 2 is not a JSON document/),
    });
  });

  it('refuses wildcards in column paths', () => {
    expect(() => compileJsonPath('$.a[*]', 'column path')).toThrow(
      'The column path "$.a[*]" is not a path documents understand: a column reads one value: wildcards and ".." belong in the row path.',
    );
  });
});

describe('jsonRows limits', () => {
  const CAP = 256 * 1024;
  const PIECE = 'A'.repeat(64 * 1024);

  async function read(input: AsyncIterable<Uint8Array | string>, rowPath: string): Promise<string[]> {
    const out: string[] = [];
    for await (const b of jsonRows(input, compileJsonPath(rowPath, 'row path'), 'big.json', 'accounts'))
      out.push(...b.map(jsonText));
    return out;
  }

  /** `head`, then PIECE forever: only a reader that gives up ends it. */
  function endless(head: string, pulled: { n: number }): AsyncIterable<Uint8Array> {
    return (async function* () {
      pulled.n++;
      yield Buffer.from(head);
      for (;;) {
        pulled.n++;
        yield Buffer.from(PIECE);
      }
    })();
  }

  const limited = async (fn: () => Promise<void>): Promise<void> => {
    const saved = { ...jsonLimits };
    jsonLimits.maxValueChars = CAP;
    try {
      await fn();
    } finally {
      Object.assign(jsonLimits, saved);
    }
  };

  const tooLarge = (what: string) => ({
    code: 'document_value_too_large',
    kind: 'user',
    message: `The JSON document big.json (table "accounts") cannot be read: ${what} is longer than 0.25 MiB, the most one value may hold.`,
    details: { document: 'big.json', table: 'accounts', limit: CAP },
  });

  it('gives up on a string over the limit in a document it tokenizes', () =>
    limited(async () => {
      const pulled = { n: 0 };
      await expect(read(endless('[{"a": 1, "b": "', pulled), '$[*]')).rejects.toMatchObject(tooLarge('a single value'));
      // the probe for newline-delimited JSON reads 1 MiB (16 pieces), already past the limit
      expect(pulled.n).toBe(17);
    }));

  it('gives up on a line over the limit in newline-delimited JSON, after the rows before it', () =>
    limited(async () => {
      const pulled = { n: 0 };
      const out: string[] = [];
      const reading = (async () => {
        for await (const b of jsonRows(
          endless('{"a": 1}\n{"a": "', pulled),
          compileJsonPath('$', 'row path'),
          'big.json',
          'accounts',
        ))
          out.push(...b.map(jsonText));
      })();
      await expect(reading).rejects.toMatchObject(tooLarge('line 2'));
      expect(out).toEqual(['{"a":1}']);
      // 7 characters of line 2 in the head, then 4 pieces pass 256 KiB
      expect(pulled.n).toBe(5);
    }));

  it('reads values and lines just under the limit', () =>
    limited(async () => {
      const value = 'é'.repeat(CAP / 2 - 100);
      const pretty = Buffer.from(JSON.stringify([{ a: value }, { a: 'x' }], null, 1));
      const chunks: Buffer[] = [];
      for (let i = 0; i < pretty.length; i += 64 * 1024) chunks.push(pretty.subarray(i, i + 64 * 1024));
      expect(await read(toIterable(chunks), '$[*]')).toEqual([JSON.stringify({ a: value }), '{"a":"x"}']);
      const line = JSON.stringify({ a: 'b'.repeat(CAP - 8) });
      expect(line.length).toBe(CAP);
      expect(
        await read(toIterable(['{"a": 1}\n', line.slice(0, 1000), line.slice(1000), '\n{"a": 2}\n']), '$.a'),
      ).toEqual(['1', JSON.stringify('b'.repeat(CAP - 8)), '2']);
    }));

  /** `depth` nested objects under `key`, the innermost `{"name": 1}` */
  const deep = (depth: number, key: string): string =>
    `{"${key}":`.repeat(depth - 1) + '{"name":1}' + '}'.repeat(depth - 1);
  /** the same over several lines: tokenized */
  const spread = (text: string): string => text.replace(/:/g, ':\n');
  const tooDeep = {
    code: 'document_too_deep',
    kind: 'user',
    message:
      'The JSON document big.json (table "accounts") cannot be read: it nests arrays and objects more than 1000 levels deep.',
    details: { document: 'big.json', table: 'accounts', limit: 1000 },
  };

  it("refuses nesting deeper than the limit quickly with a '$..name' row path, on either reading path", async () => {
    expect(jsonLimits.maxDepth).toBe(1000);
    // keys that never match: every level used to re-match the whole path above it
    const texts = [
      spread(deep(16_000, 'a')),
      spread(deep(1001, 'a')),
      // one line: newline-delimited, whether JSON.parse copes with the depth or not
      deep(16_000, 'a') + '\n',
      deep(1001, 'a') + '\n',
      spread(deep(16_000, 'name')),
      deep(1001, 'name') + '\n',
    ];
    for (const text of texts) {
      const started = performance.now();
      await expect(read(toIterable([text]), '$..name')).rejects.toMatchObject(tooDeep);
      expect(performance.now() - started).toBeLessThan(500);
    }
  });

  it('reads nesting at the limit, a row nested in a row staying part of it', async () => {
    for (const text of [spread(deep(1000, 'a')), deep(1000, 'a') + '\n']) {
      const started = performance.now();
      expect(await read(toIterable([text]), '$..name')).toEqual(['1']);
      expect(performance.now() - started).toBeLessThan(500);
    }
    const inner = JSON.stringify(JSON.parse(deep(999, 'name')));
    for (const text of [spread(deep(1000, 'name')), deep(1000, 'name') + '\n'])
      expect(await read(toIterable([text]), '$..name')).toEqual([inner]);
  });

  it("matches '$..' row paths with several steps against every depth", async () => {
    const text = JSON.stringify({
      a: { b: { x: [{ c: 1 }, { c: 2 }] }, c: 3 },
      x: { a: { y: { b: { c: 4 } } } },
      b: { c: 5 },
    });
    expect(await read(toIterable([text + '\n']), '$..a..b.c')).toEqual(['4']);
    expect(await read(toIterable([JSON.stringify(JSON.parse(text), null, 1)]), '$..a..b.c')).toEqual(['4']);
    expect(await read(toIterable([text + '\n']), '$.a..c')).toEqual(['1', '2', '3']);
    expect(await read(toIterable([JSON.stringify(JSON.parse(text), null, 1)]), '$.a..c')).toEqual(['1', '2', '3']);
    expect(await read(toIterable([text + '\n']), '$..x[1].c')).toEqual(['2']);
  });
});

function toIterable<T>(items: T[]): AsyncIterable<T> {
  return (async function* () {
    yield* items;
  })();
}
