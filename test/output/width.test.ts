/**
 * A table's cells measured as a terminal shows them (src/output/table.ts, string-width): a CJK character or an
 * emoji takes two columns, so a table of them still fits the terminal and its borders line up.
 */
import { PassThrough } from "node:stream";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { Output } from "../../src/output/output.js";

async function drawn(rows: Record<string, unknown>[], width: number): Promise<string[]> {
  const stdout = new PassThrough();
  let text = "";
  stdout.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  const output = new Output(stdout, { format: "table", color: false, width });
  await output.list(rows, [{ key: "name" }, { key: "team" }, { key: "note" }]);
  return text.trimEnd().split("\n");
}

const rows = [
  {
    name: "山田太郎",
    team: "開発チーム 🚀",
    note: "日本語のメモはとても長いのでこの表の幅には入りきらないでしょう",
  },
  { name: "Zoë 👩‍💻", team: "🎉🎉🎉", note: "한국어 메모도 길어서 잘려야 합니다 그렇지 않으면 넘칩니다" },
  { name: "Ada", team: "core", note: "plain" },
];

describe("a table of CJK and emoji cells", () => {
  it.each([60, 80])("at %i columns fits the terminal, every line as wide as the others", async (columns) => {
    const lines = await drawn(rows, columns);
    expect(lines.length).toBeGreaterThanOrEqual(5);
    const widths = lines.map((line) => stringWidth(line));
    for (const w of widths) expect(w).toBeLessThanOrEqual(columns);
    // The borders line up: each line of the table is as wide as the first.
    expect(new Set(widths)).toEqual(new Set([widths[0]]));
    expect(lines.join("\n")).toContain("山田太郎");
    expect(lines.join("\n")).toContain("…");
  });
});
