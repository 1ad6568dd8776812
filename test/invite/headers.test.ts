/**
 * `invite cancel` and `invite reattempt` on a terminal of 80 columns: the headers `invite send` gives the fields
 * they share (INVITATION, TEST URL, STATUS), then every other field of the answer; `--json` as the service sent it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { sleep, useTestEnv } from "../helpers/cli.js";
import { screenLines } from "../helpers/screen.js";
import { Terminal } from "../helpers/terminal.js";

const COLS = 80;
const t = useTestEnv();
const terminals: Terminal[] = [];
afterEach(() => Promise.all(terminals.splice(0).map((term) => term.close())));

/** The built CLI in a terminal of 80 columns, run to its end: its screen's lines. */
async function onScreen(args: string[]) {
  const term = Terminal.start(args, t.env, COLS);
  terminals.push(term);
  const code = await term.exited;
  let seen = -1;
  while (seen !== term.output.length) {
    seen = term.output.length;
    await sleep(100);
  }
  return { code, lines: screenLines(term.output, COLS) };
}

async function invite(email: string): Promise<number> {
  const argv = ["invite", "send", "--test", "1002", "--email", email, "--name", "N", "--json"];
  return (await t.run(argv)).json<{ testInvitationId: number }>().testInvitationId;
}

describe("the table of invite cancel and invite reattempt", () => {
  it("cancel: INVITATION and STATUS, as invite send names them", async () => {
    const id = await invite("headers.cancel@example.com");
    const { code, lines } = await onScreen(["invite", "cancel", String(id)]);
    expect(code).toBe(0);
    const screen = lines.join("\n");
    expect(screen).toMatch(new RegExp(`│ INVITATION +│ ${id} +│`));
    expect(screen).toMatch(/│ STATUS +│ cancelled +│/);
    expect(screen).not.toMatch(/testInvitationId|│ status/);
  });

  it("reattempt: INVITATION and TEST URL, then every other field of the answer", async () => {
    const id = await invite("headers.reattempt@example.com");
    await t.sandbox.completeAttempt(id, "Complete");
    const { code, lines } = await onScreen(["invite", "reattempt", String(id)]);
    expect(code).toBe(0);
    const screen = lines.join("\n");
    expect(screen).toMatch(/│ INVITATION +│ \d+ +│/);
    expect(screen).toMatch(/TEST URL/);
    // Headed as the declared columns are (all capitals), not by the field's name.
    expect(screen).toMatch(/│ CALLBACK URL REGISTERED +│ false +│/);
    expect(screen).toMatch(/│ REDIRECT URL REGISTERED +│ false +│/);
    expect(screen).not.toMatch(/testInvitationId|testUrl/);
    const labels = lines.map((line) => /^│ (.+?) +│/.exec(line)?.[1]).filter((label) => label !== undefined);
    expect(labels.filter((label) => label !== label.toUpperCase())).toEqual([]);
    expect(lines.every((line) => [...line].length <= COLS)).toBe(true);
  });

  it("--json: the answer as the service sent it", async () => {
    const id = await invite("headers.json@example.com");
    const r = await t.run(["invite", "cancel", String(id), "--json"]);
    expect(r.json()).toEqual({ testInvitationId: id, status: "cancelled" });
  });
});
