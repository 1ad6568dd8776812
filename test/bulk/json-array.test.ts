import { writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { type JsonElement, jsonArrayBatches } from "../../src/bulk/rows/json-array.js";
import { tempDir } from "../helpers/cli.js";

const tmp = tempDir("assess-json-");
afterAll(() => tmp.cleanup());
let n = 0;

async function elements(text: string): Promise<JsonElement[]> {
  const path = tmp.file(`a${n++}.json`);
  writeFileSync(path, text);
  const out: JsonElement[] = [];
  for await (const batch of jsonArrayBatches(path, "a.json")) out.push(...batch);
  return out;
}

describe("jsonArrayBatches", () => {
  it("yields each element with the line it starts on, across 64 KiB reads", async () => {
    const items = Array.from({ length: 3000 }, (_, i) => ({
      email: `e${i}@x.io`,
      note: `has ] and } and "quotes" \\ ${i}`,
    }));
    const text = `\uFEFF[\n${items.map((item) => JSON.stringify(item, null, 2)).join(",\n")}\n]\n`;
    const got = await elements(text);
    expect(got.map((e) => e.value)).toEqual(items);
    expect(got[0]!.line).toBe(2);
    expect(got[1]!.line).toBe(2 + 4); // each pretty-printed item takes four lines
    expect(got.at(-1)!.line).toBe(2 + 4 * 2999);
  });

  it("passes literals and strings through, and flags an element that is not JSON", async () => {
    const got = await elements('[1, "two", null, {"a": [1, {"b": "]"}]}, {bad}]');
    expect(got.slice(0, 4).map((e) => e.value)).toEqual([1, "two", null, { a: [1, { b: "]" }] }]);
    expect(got[4]!.error).toMatch(/not valid JSON/);
    expect(await elements("[ ]")).toEqual([]);
  });

  it("refuses what is not one array", async () => {
    await expect(elements('{"email": "a@x.io"}')).rejects.toThrow(
      /a\.json:1: the file must hold a JSON array/,
    );
    await expect(elements('[{"a": 1},\n{"b": 2}')).rejects.toThrow(/a\.json:2: the array never closes/);
    await expect(elements("[1,]")).rejects.toThrow(/a comma before \]/);
    await expect(elements("[1\n{}]")).rejects.toThrow(/a\.json:2: a comma is missing/);
    await expect(elements("[1] [2]")).rejects.toThrow(/text after the end of the array/);
    await expect(elements("")).rejects.toThrow(/the file is empty/);
  });
});
