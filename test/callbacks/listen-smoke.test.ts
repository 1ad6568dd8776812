import { spawn } from "node:child_process";
import { join } from "node:path";
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { eventually } from "./live.js";

const BIN = join(import.meta.dirname, "..", "..", "bin", "assess.js");

describe("callbacks listen, as a user runs it (built CLI)", () => {
  it("prints NDJSON when piped and stops cleanly on Ctrl-C (SIGINT)", async () => {
    const child = spawn(process.execPath, [BIN, "callbacks", "listen", "--port", "0"], {
      env: { PATH: process.env.PATH, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      const url = await eventually(() => /Callback URL to use: (\S+)/.exec(stderr)?.[1], "the callback URL");
      const res = await request(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ TestInvitationId: 77, Status: "Complete" }),
      });
      expect(res.statusCode).toBe(200);
      await res.body.dump();
      await eventually(() => stdout.includes("\n") || undefined, "a line on stdout");
      expect(JSON.parse(stdout.trim())).toMatchObject({
        testInvitationId: 77,
        status: "Complete",
        duplicate: false,
      });

      child.kill("SIGINT");
      expect(await exited).toBe(130);
      expect(stderr).toContain("Stopped: 1 notification (0 duplicate), 0 rejected requests.");
    } finally {
      child.kill("SIGKILL");
    }
  });
});
