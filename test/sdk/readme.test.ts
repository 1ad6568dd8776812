/**
 * The README's "Use it from code" example runs as written: its first js block, saved as a module of a project
 * that has the package (`node_modules/assess-cli`, this clone's build), run by node against a sandbox with the
 * ASSESS_* variables it says it reads.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT, stopWhenTestEnds, useTempDir, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();
const tmp = useTempDir("assess-sdk-readme-");

it("the README's SDK example runs as written against a sandbox", async () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const example = /## Use it from code[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(example).toContain('from "assess-cli"');
  const project = tmp.file("project");
  mkdirSync(join(project, "node_modules"), { recursive: true });
  symlinkSync(ROOT, join(project, "node_modules", "assess-cli"));
  writeFileSync(join(project, "example.mjs"), example!);
  const child = stopWhenTestEnds(
    spawn(process.execPath, ["example.mjs"], {
      cwd: project,
      env: { PATH: process.env.PATH, ...t.env },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  expect(stderr.replace(/^400 .*\n/m, "")).toBe("");
  expect(code).toBe(0);
  expect(stdout).toContain("1001 JavaScript Fundamentals");
  expect(stdout).toContain("[ 'alan@example.com: sent' ]");
  // The attempts of the last 90 days, Ada's new invitation not among them (not finished).
  expect(stdout).toMatch(/^1\d{5} \S+@\S+$/m);
  // reports.get of an unfinished attempt: the AssessApiError branch prints the status and the service's words.
  expect(stderr).toMatch(/^400 \[ 'Report is not available/m);
});
