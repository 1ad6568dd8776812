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
import { normalized, type ReshapingProxy, startReshapingProxy, variantArb } from "./reshape.js";

const NOW = new Date("2025-06-15T12:00:00Z");

/** Reads (and idempotent writes) over every kind of answer: pages, records, lists in envelopes, errors. */
const COMMANDS: string[][] = [
  ["tests", "list", "--all", "--page-size", "2"],
  ["tests", "get", "1001"],
  ["tests", "settings", "get", "1001"],
  ["links", "list", "--test", "1001"],
  ["links", "get", "3001", "--test", "1001"],
  ["attempts", "list", "--from", "2025-04-20", "--to", "2025-06-15"],
  ["reports", "export", "--from", "2025-06-01", "--to", "2025-06-15", "--test", "1001"],
  ["employees", "list", "--all", "--page-size", "20"],
  ["employees", "skills-profiles", "--page-size", "5"],
  ["employees", "skills", "501"],
  ["employees", "certificates", "501"],
  ["employees", "skill-gap", "501"],
  ["invite", "send", "--test", "1001", "--email", "same.person@example.com", "--name", "Same Person"],
  ["tests", "get", "999999"],
  ["reports", "get", "1"],
  ["links", "get", "1", "--test", "1001"],
  // A 400 of the service (an e-mail already taken); a malformed one is refused before sending.
  ["users", "create", "--email", "admin@acme.example", "--name", "X"],
  ["users", "status", "--email", "nobody@example.com", "--status", "Retired"],
  ["callbacks", "resend", "1", "2", "--restart"],
];

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

interface Seen {
  code: number;
  json: unknown;
  tsv: string;
  errors: string[];
}

/** A bulk run's ledger is named after its target, which differs through the proxy. */
function stable(text: string): string {
  return text.replace(/ledgers\/[\w.-]+/g, "ledgers/…");
}

async function observe(origin: string, argv: string[]): Promise<Seen> {
  const json = await run(origin, [...argv, "--json"]);
  const tsv = await run(origin, [...argv, "-o", "tsv"]);
  const errors = json.stderr.split("\n").filter((line) => line.startsWith("error:"));
  return {
    code: json.code,
    json: json.stdout.trim() ? normalized(JSON.parse(stable(json.stdout))) : undefined,
    tsv: stable(tsv.stdout),
    errors,
  };
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

  it("for every variant, every command", async () => {
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
      { numRuns: 25 },
    );
  });
});
