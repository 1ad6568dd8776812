/**
 * src/api/undici.ts imports two of undici's own files instead of its index (~40 ms of start-up saved per
 * command, bench/README.md). They are not a public API, so undici is pinned to one exact version in
 * package.json, and this test fails loudly, naming the files, the day an upgrade moves or changes them; and
 * the day its beforeConnect channel, which src/runtime/v8-flags.ts listens on, stops coming first.
 */

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../bulk/helpers.js";

const require = createRequire(import.meta.url);
const PRIVATE = ["undici/lib/api/api-request.js", "undici/lib/dispatcher/agent.js"];

describe("undici's private files that src/api/undici.ts imports", () => {
  it("undici is pinned to one exact version, the one installed", () => {
    const wanted = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).devDependencies.undici;
    expect(wanted, "pin undici exactly: its private files may move in any release").toMatch(
      /^\d+\.\d+\.\d+$/,
    );
    expect(require("undici/package.json").version).toBe(wanted);
  });

  for (const file of PRIVATE) {
    it(`${file} is still there and still exports what the client calls`, () => {
      let loaded: unknown;
      try {
        loaded = require(file);
      } catch (error) {
        throw new Error(
          `undici moved ${file} (${(error as Error).message}); update src/api/undici.ts and its types in undici-internals.d.ts`,
        );
      }
      expect(typeof loaded, `${file} no longer exports a function`).toBe("function");
    });
  }

  it("undici announces a connection on its beforeConnect channel before it compiles llhttp (src/runtime/v8-flags.ts sets --liftoff-only then)", async () => {
    const { subscribe, unsubscribe } = await import("node:diagnostics_channel");
    const { Agent, request } = await import("../../src/api/undici.js");
    const { createServer } = await import("node:http");
    const server = createServer((_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const seen: string[] = [];
    const onBeforeConnect = () => seen.push("beforeConnect");
    const onConnected = () => seen.push("connected");
    subscribe("undici:client:beforeConnect", onBeforeConnect);
    subscribe("undici:client:connected", onConnected);
    const agent = new Agent();
    try {
      const { port } = server.address() as { port: number };
      const res = await request(agent, `http://127.0.0.1:${port}/`, { method: "GET" });
      await res.body.text();
      // llhttp is compiled once the socket is connected (client-h1.js connectH1): after beforeConnect.
      expect(seen.slice(0, 2), "rename the channel in src/runtime/v8-flags.ts").toEqual([
        "beforeConnect",
        "connected",
      ]);
    } finally {
      unsubscribe("undici:client:beforeConnect", onBeforeConnect);
      unsubscribe("undici:client:connected", onConnected);
      await agent.close();
      server.close();
    }
  });

  it("the two pieces make a request as the client uses them", async () => {
    const { Agent, request } = await import("../../src/api/undici.js");
    const { createServer } = await import("node:http");
    const server = createServer((_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const agent = new Agent();
    try {
      const { port } = server.address() as { port: number };
      const res = await request(agent, `http://127.0.0.1:${port}/x?y=1`, { method: "GET" });
      expect(res.statusCode).toBe(200);
      expect(await res.body.text()).toBe("ok");
    } finally {
      await agent.close();
      server.close();
    }
  });
});
