import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { helpTexts, referenceMarkdown } from "../helpers/reference.js";

const ROOT = join(import.meta.dirname, "..", "..");
const README = join(ROOT, "README.md");
const START = "<!-- reference:start -->\n";
const END = "<!-- reference:end -->";

describe("README", () => {
  it("its reference section is exactly every command's --help (UPDATE_README=1 rewrites it)", async () => {
    const readme = readFileSync(README, "utf8");
    const generated = await referenceMarkdown();
    const [before, rest] = readme.split(START) as [string, string];
    const after = rest.slice(rest.indexOf(END));
    if (process.env.UPDATE_README === "1") writeFileSync(README, `${before}${START}${generated}${after}`);
    const current = process.env.UPDATE_README === "1" ? generated : rest.slice(0, rest.indexOf(END));
    expect(current, "README reference is stale: run `UPDATE_README=1 npx vitest run test/docs`").toBe(
      generated,
    );
  });

  it("every command's help has a description and at least one example", async () => {
    const missing = (await helpTexts())
      .filter((t) => t.leaf)
      .filter((t) => !t.help.includes("Examples:") || !/\n\n\S/.test(t.help.split("\n").slice(1).join("\n")))
      .map((t) => t.path);
    expect(missing).toEqual([]);
  });

  it("the tour runs as written against a sandbox", async () => {
    const readme = readFileSync(README, "utf8");
    const tour = /## A two-minute tour on the sandbox[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(tour).toBeDefined();
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "assess-tour-"));
    const shims = join(dir, "bin");
    mkdirSync(shims);
    writeFileSync(
      join(shims, "assess"),
      `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, "bin", "assess.js")}" "$@"\n`,
    );
    chmodSync(join(shims, "assess"), 0o755);
    symlinkSync(join(ROOT, "fixtures"), join(dir, "fixtures"));
    // The tour's export goes to a folder of mktemp's (under TMPDIR), never into the clone.
    const tmp = join(dir, "tmp");
    mkdirSync(tmp);
    const script = `set -e\n${tour!.replaceAll("4010", String(port))}`;
    const r = spawnSync("bash", ["-c", script], {
      cwd: dir,
      encoding: "utf8",
      timeout: 60_000,
      env: {
        PATH: `${shims}:${process.env.PATH}`,
        HOME: dir,
        ASSESS_CONFIG_DIR: join(dir, "config"),
        TMPDIR: tmp,
        NO_COLOR: "1",
      },
    });
    expect(r.stderr).not.toMatch(/error:/);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("JavaScript Fundamentals");
    expect(existsSync(join(dir, "last-30-days.csv"))).toBe(false);
    const [folder] = readdirSync(tmp);
    expect(readFileSync(join(tmp, folder!, "last-30-days.csv"), "utf8")).toMatch(/^\uFEFF?.*\r\n/);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
