import { existsSync, lstatSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sleep, useTempDir } from "../helpers/cli.js";
import { clients, start } from "./helpers.js";

const tmp = useTempDir("assess-sandbox-");

describe("state file", () => {
  it("is never written through a link planted at the name of its temporary file", async () => {
    const stateFile = tmp.file("planted.json");
    const victim = tmp.file("victim.txt");
    writeFileSync(victim, "not yours\n");
    // The names the saver used to write to first: <state>.<pid>.<n>.tmp, guessable in a shared folder.
    for (let n = 1; n <= 5; n++) symlinkSync(victim, `${stateFile}.${process.pid}.${n}.tmp`);
    const sandbox = await start({ stateFile });
    try {
      const invited = await clients(sandbox).api("POST", "/v3/tests/1001/invite", {
        body: { emailId: "planted@example.com", fullName: "Planted" },
      });
      expect(invited.status).toBe(201);
    } finally {
      await sandbox.close();
    }
    expect(readFileSync(victim, "utf8")).toBe("not yours\n");
    const saved = lstatSync(stateFile);
    expect(saved.isFile()).toBe(true);
    expect(saved.mode & 0o777).toBe(0o600);
    expect(readFileSync(stateFile, "utf8")).toContain("planted@example.com");
  });

  it("survives a restart: invitations kept, ids keep counting", async () => {
    const stateFile = tmp.file("state.json");
    const first = await start({ stateFile });
    const c1 = clients(first);
    const a = await c1.api("POST", "/v3/tests/1001/invite", {
      body: { emailId: "persist@example.com", fullName: "Persist" },
    });
    const link = await c1.api("POST", "/v3/tests/1002/testlinks/3005", { body: { testLinkName: "Renamed" } });
    expect(link.status).toBe(200);
    // Saved within ~100 ms of the mutation, before close.
    await sleep(250);
    expect(
      JSON.parse(readFileSync(stateFile, "utf8")).state.invitations.some(
        (i: { email: string }) => i.email === "persist@example.com",
      ),
    ).toBe(true);
    await first.close();

    const second = await start({ stateFile });
    try {
      const c2 = clients(second);
      const stored = second.state.invitations.find((i) => i.testInvitationId === a.json.testInvitationId);
      expect(stored?.email).toBe("persist@example.com");
      const again = await c2.api("POST", "/v3/tests/1001/invite", {
        body: { emailId: "persist@example.com", fullName: "Persist" },
      });
      expect(again.json.testInvitationId).toBe(a.json.testInvitationId);
      const next = await c2.api("POST", "/v3/tests/1001/invite", {
        body: { emailId: "next@example.com", fullName: "Next" },
      });
      expect(next.json.testInvitationId).toBe(a.json.testInvitationId + 1);
      expect((await c2.api("GET", "/v3/tests/1002/testlinks/3005")).json.testLinkName).toBe("Renamed");
    } finally {
      await second.close();
    }
    // Atomic writes leave no temp files behind.
    expect(existsSync(stateFile)).toBe(true);
    expect(readFileSync(stateFile, "utf8").length).toBeGreaterThan(1000);
  });

  it("refuses a file that is not a sandbox state file", async () => {
    const stateFile = tmp.file("other.json");
    writeFileSync(stateFile, JSON.stringify({ hello: "world" }));
    await expect(start({ stateFile })).rejects.toThrow(/not an assess sandbox state file/);
  });
});
