/**
 * takeLock (src/config/private.ts), the lock of the bulk ledgers and of `attempts watch`: in the words of the
 * caller, a lock held by a live process is refused; a lock holding this process's id is refused while this
 * process holds it, and taken over when it does not (an earlier process's reused id, as in a container).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { type LockMessages, takeLock } from "../../src/config/private.js";
import { useTempDir } from "../helpers/cli.js";

const tmp = useTempDir("assess-config-lock-");

const messages: LockMessages = {
  held: (pid) => new Error(`held by ${pid}`),
  busy: () => new Error("busy"),
  failed: (file) => new Error(`failed: ${file}`),
};

describe("takeLock", () => {
  it("holds this process's id; a second take is refused until it is released", () => {
    const lock = tmp.fresh("a.lock");
    const release = takeLock(lock, messages);
    expect(readFileSync(lock, "utf8")).toBe(String(process.pid));
    expect(() => takeLock(lock, messages)).toThrow(`held by ${process.pid}`);
    release();
    expect(existsSync(lock)).toBe(false);
    takeLock(lock, messages)();
  });

  it("refuses a live process's lock; takes over one whose process is gone, or this id left by an earlier process", () => {
    const lock = tmp.fresh("b.lock");
    writeFileSync(lock, "1");
    expect(() => takeLock(lock, messages)).toThrow("held by 1");
    for (const stale of ["999999999", String(process.pid)]) {
      writeFileSync(lock, stale);
      const release = takeLock(lock, messages);
      expect(readFileSync(lock, "utf8")).toBe(String(process.pid));
      release();
    }
  });

  it("takes over a stale lock whose last taker was killed while taking it over (its .takeover left behind)", () => {
    // A run killed in the instant between creating <lock>.takeover and removing it (the crash loop's SIGKILL
    // landed there): every later run refused the ledger and asked the user to delete the file.
    const lock = tmp.fresh("c.lock");
    writeFileSync(lock, "999999999");
    writeFileSync(`${lock}.takeover`, "999999998");
    const release = takeLock(lock, messages);
    expect(readFileSync(lock, "utf8")).toBe(String(process.pid));
    expect(existsSync(`${lock}.takeover`)).toBe(false);
    release();
    // Nothing set aside is left behind.
    expect(readdirSync(dirname(lock)).filter((name) => name.startsWith("c.lock"))).toEqual([]);
  });

  it("leaves a live process's takeover alone", () => {
    const lock = tmp.fresh("d.lock");
    writeFileSync(lock, "999999999");
    writeFileSync(`${lock}.takeover`, "1");
    expect(() => takeLock(lock, messages)).toThrow("busy");
    expect(readFileSync(`${lock}.takeover`, "utf8")).toBe("1");
  });
});
