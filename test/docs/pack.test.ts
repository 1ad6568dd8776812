import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { BIN, ROOT } from "../helpers/cli.js";

it("npm pack makes a package named assess-cli that installs globally, puts `assess` on the PATH and runs from a clean directory", () => {
  const dir = mkdtempSync(join(tmpdir(), "assess-pack-"));
  // A run of this clone's CLI makes its code-cache key beside the bundles (src/runtime/code-cache.ts).
  const here = { ...process.env, ASSESS_CONFIG_DIR: join(dir, "here") };
  expect(spawnSync(process.execPath, [BIN, "--sandbox", "tests", "list"], { env: here }).status).toBe(0);
  expect(existsSync(join(ROOT, "dist", "code-cache.key"))).toBe(true);
  // dist/ is built once for the whole suite; --ignore-scripts keeps prepack from rebuilding it under other tests.
  execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], { cwd: ROOT, stdio: "pipe" });
  const tarball = readdirSync(dir).find((f) => /^assess-cli-\d.*\.tgz$/.test(f));
  expect(tarball).toBeDefined();
  const prefix = join(dir, "global");
  // The bundle is self-contained: the package has no dependencies, so the install needs no registry.
  execFileSync(
    "npm",
    ["install", "-g", "--offline", "--no-audit", "--no-fund", "--prefix", prefix, join(dir, tarball!)],
    {
      cwd: dir,
      stdio: "pipe",
    },
  );
  // `assess` on the public registry is an unrelated package; ours is assess-cli.
  const installed = JSON.parse(
    readFileSync(join(prefix, "lib", "node_modules", "assess-cli", "package.json"), "utf8"),
  ) as { name: string; bin: Record<string, string> };
  expect(installed.name).toBe("assess-cli");
  expect(Object.keys(installed.bin)).toEqual(["assess"]);
  const clean = join(dir, "elsewhere");
  mkdirSync(clean);
  const env = {
    PATH: `${join(prefix, "bin")}:${process.env.PATH}`,
    HOME: clean,
    ASSESS_CONFIG_DIR: join(clean, "cfg"),
  };
  const help = spawnSync("assess", ["--help"], { cwd: clean, encoding: "utf8", env });
  expect(help.status).toBe(0);
  expect(help.stdout).toContain("Usage: assess");
  const list = spawnSync("assess", ["--sandbox", "tests", "list", "--json"], {
    cwd: clean,
    encoding: "utf8",
    env,
  });
  expect(list.status).toBe(0);
  expect(JSON.parse(list.stdout)[0]).toHaveProperty("testId");
  // The secret that seals code caches is each installation's own: the packer's is not in the package (an
  // installation sharing it could be sent a forged cache), and the installed CLI makes one and uses its caches.
  const files = execFileSync("tar", ["tzf", join(dir, tarball!)], { encoding: "utf8" }).split("\n");
  expect(files).toContain("package/dist/cli.cjs");
  expect(files.filter((f) => f.includes("code-cache.key"))).toEqual([]);
  const installedKey = join(prefix, "lib", "node_modules", "assess-cli", "dist", "code-cache.key");
  expect(existsSync(installedKey)).toBe(true);
  expect(statSync(installedKey).mode & 0o777).toBe(0o600);
  expect(readFileSync(installedKey).equals(readFileSync(join(ROOT, "dist", "code-cache.key")))).toBe(false);
  expect(readdirSync(join(clean, "cfg", "cache")).length).toBeGreaterThan(0);
});

it("the README installs and imports the package by its name, assess-cli, never the registry's unrelated `assess`", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  expect(readme).toContain("npm install assess-cli");
  expect(readme).toContain('from "assess-cli"');
  expect(readme).not.toMatch(/npm (install|i) (-g )?assess(?!-cli)\b/);
  expect(readme).not.toMatch(/from ["']assess["']/);
  expect(readme).not.toMatch(/\bassess-\d+\.\d+\.\d+\.tgz/);
});
