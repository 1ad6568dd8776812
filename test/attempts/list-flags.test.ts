/**
 * `attempts list` takes --test and --all and checks --state, in-process (`main`) against the sandbox.
 */
import { describe, expect, it } from "vitest";
import { runCli, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();

describe("attempts list takes --test and --all, and checks --state", () => {
  it("--test 1002 keeps that test's attempts; --all lists the same as the default", async () => {
    const all = await runCli(["attempts", "list", "--from", "90d", "--to", "now", "--json"], { env: t.env });
    const one = await runCli(
      ["attempts", "list", "--from", "90d", "--to", "now", "--test", "1002", "--json"],
      {
        env: t.env,
      },
    );
    const both = await runCli(
      ["attempts", "list", "--from", "90d", "--to", "now", "--test", "1002,1003", "--all", "--json"],
      { env: t.env },
    );
    expect([all.code, one.code, both.code]).toEqual([0, 0, 0]);
    type Attempt = { testId: number };
    const every = all.json<Attempt[]>();
    const kept = one.json<Attempt[]>();
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.every((a) => a.testId === 1002)).toBe(true);
    expect(kept.length).toBe(every.filter((a) => a.testId === 1002).length);
    expect(both.json<Attempt[]>().length).toBe(every.filter((a) => [1002, 1003].includes(a.testId)).length);
    const allFlag = await runCli(["attempts", "list", "--from", "90d", "--to", "now", "--all", "--json"], {
      env: t.env,
    });
    expect(allFlag.json<Attempt[]>()).toEqual(every);
  });

  it("--test of another account's test is refused (exit 4); --state foo is refused before any request (exit 2)", async () => {
    const other = await runCli(["attempts", "list", "--from", "7d", "--to", "now", "--test", "2001"], {
      env: t.env,
    });
    expect(other.code).toBe(4);
    const mark = t.sandbox.requests.length;
    const state = await runCli(["attempts", "list", "--from", "7d", "--to", "now", "--state", "foo"], {
      env: t.env,
    });
    expect(state.code).toBe(2);
    expect(state.stderr).toMatch(/--state.*'foo' is invalid\. Allowed choices are completed/);
    expect(t.sandbox.requests.slice(mark)).toEqual([]);
  });
});
