/**
 * The MCP SDK is in a chunk of dist/ that only `assess mcp` loads: the other commands, and `assess mcp --help`,
 * start as they did before it. Each command line below runs the built CLI with a preload that lists, at exit,
 * the files of dist/ it loaded.
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/cli.js";

const DIST = join(ROOT, "dist");
const dir = mkdtempSync(join(tmpdir(), "assess-mcp-bundle-"));
const PRELOAD = join(dir, "loaded.cjs");
writeFileSync(
  PRELOAD,
  `process.on("exit", () => require("node:fs").writeFileSync(process.env.LOADED_LIST,
     Object.keys(require.cache).filter((f) => f.startsWith(${JSON.stringify(DIST)})).join("\\n")));`,
);

/** The files of dist/ that hold the MCP SDK's server (its Server class says so). */
const MCP_FILES = readdirSync(DIST).filter(
  (file) =>
    file.endsWith(".cjs") && readFileSync(join(DIST, file), "utf8").includes("Server does not support"),
);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function loadedBy(args: string[]): string[] {
  const list = join(dir, "loaded.txt");
  const r = spawnSync(process.execPath, ["--require", PRELOAD, join(ROOT, "bin", "assess.js"), ...args], {
    env: { PATH: process.env.PATH, ASSESS_CONFIG_DIR: join(dir, "config"), LOADED_LIST: list, NO_COLOR: "1" },
    input: "",
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(list, "utf8")
    .split("\n")
    .map((file) => file.slice(DIST.length + 1));
}

describe("the MCP SDK's chunk", () => {
  it("is in the CLI's dist/ and in no bundle of the SDK", () => {
    expect(MCP_FILES.length).toBeGreaterThan(0);
    expect(MCP_FILES.filter((file) => file.startsWith("sdk"))).toEqual([]);
  });

  it("is loaded by `assess mcp` (which ends when its stdin does)", () => {
    const loaded = loadedBy(["--sandbox", "mcp"]);
    expect(loaded.filter((file) => MCP_FILES.includes(file)).length).toBeGreaterThan(0);
  });

  it("is loaded by no other command, nor by `assess mcp --help` or `assess mcp token`", () => {
    for (const args of [
      ["--sandbox", "tests", "list", "--json"],
      ["--sandbox", "attempts", "list", "--from", "7d", "--to", "now", "--json"],
      ["--sandbox", "reports", "stats", "--from", "7d", "--to", "now", "--json"],
      ["mcp", "--help"],
      ["mcp", "token", "list"],
    ]) {
      const loaded = loadedBy(args);
      expect(loaded.length, args.join(" ")).toBeGreaterThan(2);
      expect(
        loaded.filter((file) => MCP_FILES.includes(file)),
        args.join(" "),
      ).toEqual([]);
    }
  });
});
