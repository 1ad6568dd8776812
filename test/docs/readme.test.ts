import { spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, stopWhenTestEnds } from "../helpers/cli.js";
import { helpTexts, REFERENCE_DIR, referencePages } from "../helpers/reference.js";
import { startRelay } from "../helpers/shell.js";

const README = join(ROOT, "README.md");
const REFERENCE = join(ROOT, REFERENCE_DIR);
/** The README stays an overview: guides and the reference live in docs/. */
const README_MAX_LINES = 400;

describe("README and docs/", () => {
  it("docs/reference/ is exactly every command's --help, one page per group (UPDATE_DOCS=1 rewrites it)", async () => {
    const pages = await referencePages();
    if (process.env.UPDATE_DOCS === "1") {
      rmSync(REFERENCE, { recursive: true, force: true });
      mkdirSync(REFERENCE, { recursive: true });
      for (const [name, text] of pages) writeFileSync(join(REFERENCE, name), text);
    }
    const stale = "docs/reference/ is stale: run `UPDATE_DOCS=1 npx vitest run test/docs/readme.test.ts`";
    expect(readdirSync(REFERENCE).sort(), stale).toEqual([...pages.keys()].sort());
    for (const [name, text] of pages)
      expect(readFileSync(join(REFERENCE, name), "utf8"), `${stale} (${name})`).toBe(text);
  });

  it(`the README links every reference page and guide, and stays within ${README_MAX_LINES} lines`, () => {
    const readme = readFileSync(README, "utf8");
    const linked = new Set([...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((m) => m[1]));
    const pages = readdirSync(REFERENCE).map((name) => `${REFERENCE_DIR}/${name}`);
    const guides = readdirSync(join(ROOT, "docs"))
      .filter((name) => name.endsWith(".md"))
      .map((name) => `docs/${name}`);
    expect([...pages, ...guides].filter((page) => !linked.has(page))).toEqual([]);
    expect([...linked].filter((page) => !existsSync(join(ROOT, page!)))).toEqual([]);
    expect(readme.split("\n").length).toBeLessThanOrEqual(README_MAX_LINES);
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
    // Each `assess` of the tour is main() of this process (test/helpers/shell.ts), the sandbox's too.
    const relay = await startRelay(join(dir, "bin"));
    symlinkSync(join(ROOT, "fixtures"), join(dir, "fixtures"));
    // The tour's export goes to a folder of mktemp's (under TMPDIR), never into the clone.
    const tmp = join(dir, "tmp");
    mkdirSync(tmp);
    const script = `set -e\n${tour!.replaceAll("4010", String(port))}`;
    // Its output into files, which the relay can open again (not a socket pair, Node's pipes to a child).
    const output = [join(dir, "stdout"), join(dir, "stderr")].map((file) => openSync(file, "a"));
    const child = stopWhenTestEnds(
      spawn("bash", ["-c", script], {
        cwd: dir,
        stdio: ["ignore", ...output],
        env: {
          PATH: `${relay.bin}:${process.env.PATH}`,
          HOME: dir,
          ASSESS_CONFIG_DIR: join(dir, "config"),
          TMPDIR: tmp,
          NO_COLOR: "1",
        },
      }),
    );
    for (const fd of output) closeSync(fd);
    const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
    await relay.close();
    const r = {
      status,
      stdout: readFileSync(join(dir, "stdout"), "utf8"),
      stderr: readFileSync(join(dir, "stderr"), "utf8"),
    };
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
