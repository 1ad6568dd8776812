/**
 * The CLI's commands call the SDK's client (ctx.client(): `client.tests.list`, `client.reports.get`), so an
 * operation is written once: its record in api/operations/, sent by api/endpoints.ts, reached by resource and
 * verb. The only direct calls of the API layer left are the bulk engine's chunks (rows already checked and
 * serialized), through `client.api`.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, it } from "vitest";
import { OPERATIONS } from "../../src/api/operations/index.js";

const SRC = join(import.meta.dirname, "..", "..", "src");
/** The engine sends chunks of rows it serialized itself: the SDK's bulk methods take items instead. */
const ENGINE_CHUNKS = new Set(["bulkInvite", "upsertEmployees"]);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : name.endsWith(".ts") ? [path] : [];
  });
}

it("commands and prompts reach the service's operations through the SDK's client", () => {
  const operations = Object.keys(OPERATIONS).join("|");
  const direct = new RegExp(`\\b(\\w+)\\.(${operations}|call|page)\\(`, "g");
  const wrong: string[] = [];
  const sources = [...files(join(SRC, "commands")), ...files(join(SRC, "prompts"))];
  for (const file of sources) {
    const text = readFileSync(file, "utf8");
    for (const [call, receiver, operation] of text.matchAll(direct)) {
      // `client.testLinks.invite(`: a verb of the client, not the Api's `invite`.
      if (receiver !== "api" && receiver !== "Api") continue;
      if (receiver === "api" && ENGINE_CHUNKS.has(operation!) && text.includes(`client.${call}`)) continue;
      wrong.push(`src/${relative(SRC, file)}: ${call}`);
    }
    if (/\bctx\.api\(/.test(text)) wrong.push(`src/${relative(SRC, file)}: ctx.api()`);
    for (const match of text.matchAll(/new Api\(/g)) {
      const around = text.slice(Math.max(0, match.index! - 12), match.index! + 8);
      if (!around.includes("new Client(new Api("))
        wrong.push(`src/${relative(SRC, file)}: a bare new Api(...)`);
    }
  }
  expect(sources.length).toBeGreaterThan(50);
  expect(wrong).toEqual([]);
});

it("the check can fail: a direct call is caught", () => {
  const operations = Object.keys(OPERATIONS).join("|");
  const direct = new RegExp(`\\b(\\w+)\\.(${operations}|call|page)\\(`, "g");
  const sample =
    'const page = await api.page("listTests", 1, 20);\nawait client.testLinks.invite(1, 2, {});\napi.call("getTest", [1]);';
  const receivers = [...sample.matchAll(direct)].map((m) => `${m[1]}.${m[2]}`);
  expect(receivers).toEqual(["api.page", "testLinks.invite", "api.call"]);
});
