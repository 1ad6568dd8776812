/**
 * The tolerance property: the sandbox's answers, reshaped the ways the real service's differ (other key
 * casings, extra fields, `result`/`data` envelopes, lists bare or under other keys, page metadata, 201 for
 * 200, every documented error body shape), never change a command's exit code or its data. Each command runs
 * once straight against the sandbox, then through the reshaping proxy under random variants (fast-check):
 * same exit code, same `--json` data once keys are folded and the extra fields dropped, same TSV table, same
 * error message.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_KEYS, type Sandbox } from "../../src/sandbox/index.js";
import { type RunResult, runCli, useTestEnv } from "../helpers/cli.js";
import {
  COMMANDS,
  NOW,
  observeCommand,
  type ReshapingProxy,
  type Seen,
  startReshapingProxy,
  variantArb,
} from "./reshape.js";

const t = useTestEnv({ now: () => NOW });
let sandbox: Sandbox;
let proxy: ReshapingProxy;
let configDir: string;

beforeAll(async () => {
  ({ sandbox, configDir } = t);
  proxy = await startReshapingProxy(new URL(sandbox.url).origin);
});
afterAll(async () => {
  await proxy.close();
});

function run(origin: string, argv: string[]): Promise<RunResult> {
  return runCli(argv, {
    env: {
      ASSESS_BASE_URL: `${origin}/api`,
      ASSESS_SKILLS_BASE_URL: `${origin}/skills`,
      ASSESS_API_KEY: SANDBOX_KEYS.acme,
      ASSESS_CONFIG_DIR: configDir,
      CI: "true",
    },
  });
}

function observe(origin: string, argv: string[]): Promise<Seen> {
  return observeCommand((args) => run(origin, args), argv);
}

describe("reshaped answers (the real service's variations) change no exit code and no data", () => {
  const baseline = new Map<string, Seen>();
  beforeAll(async () => {
    const origin = new URL(sandbox.url).origin;
    // Twice: the first invite creates the invitation, later ones answer with the same one.
    for (const argv of COMMANDS) await observe(origin, argv);
    for (const argv of COMMANDS) baseline.set(argv.join(" "), await observe(origin, argv));
  });

  it("the baseline covers successes and each kind of failure", () => {
    const codes = [...baseline.values()].map((seen) => seen.code);
    expect(codes.filter((code) => code === 0).length).toBeGreaterThanOrEqual(12);
    expect(new Set(codes)).toEqual(new Set([0, 1, 2, 3]));
  });

  it("for random variants (5 here, 25 and more in bench/large-cases.mjs), every command", async () => {
    await fc.assert(
      fc.asyncProperty(variantArb, async (variant) => {
        proxy.variant = variant;
        for (const argv of COMMANDS) {
          const seen = await observe(proxy.url, argv);
          const expected = baseline.get(argv.join(" "));
          const label = `${argv.join(" ")} with ${JSON.stringify(variant)}`;
          expect(seen.code, label).toBe(expected?.code);
          expect(seen.json, label).toEqual(expected?.json);
          // Declared columns (upper-case headers) read the same data whatever the answer's shape; a record's
          // own table lists its fields as sent, so there the JSON comparison above is the one that holds.
          if (/^[A-Z][A-Z0-9 _]*(\t|\n)/.test(expected?.tsv ?? ""))
            expect(seen.tsv, label).toBe(expected?.tsv);
          expect(
            seen.errors.map((line) => line.replace(/\s*\(.*\)$/, "")),
            label,
          ).toEqual(expected?.errors.map((line) => line.replace(/\s*\(.*\)$/, "")));
        }
      }),
      // 5 variants here (~4 s); `npm run bench:large -- --only tolerance` tries 25 and more.
      { numRuns: 5 },
    );
  });
});
