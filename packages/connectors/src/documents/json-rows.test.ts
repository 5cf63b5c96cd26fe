import { describe, expect, it } from 'vitest';
import { compileJsonPath, evaluateColumnPath, jsonText, type JsonValue } from './json-path.js';
import { jsonRows } from './json-rows.js';

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
