/**
 * The invitation book's file (core/invitation-book.ts): one per profile and service, private; a last line a crash
 * cut short is skipped and the next record starts on a line of its own; candidates are forgotten after their
 * window plus the retention, and past the cap those invited longest ago go first.
 */
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { InvitationBook } from "../../src/core/invitation-book.js";
import { stopWhenTestEnds, useTempDir } from "../helpers/cli.js";

const tmp = useTempDir("assess-book-", { perTest: true });
const DAY = 86_400_000;

function bookOf(limits?: { retentionDays: number; maxRecords: number }, profile = "default") {
  return InvitationBook.at(
    { env: { ASSESS_CONFIG_DIR: tmp.dir }, profile, service: "https://assess.example/api" },
    limits,
  );
}

const lines = (path: string) => readFileSync(path, "utf8").split("\n").filter(Boolean);

describe("the invitation book", () => {
  it("is one private file per profile and service, e-mails keyed as the matchers key them", () => {
    const book = bookOf();
    book.record([
      { how: "bulk", testId: 1001, email: " Ada@Example.COM", name: "Ada", end: "2030-01-01T00:00:00Z" },
    ]);
    book.record([{ how: "invite", testId: 1001, email: "ada@example.com", testInvitationId: 7 }]);
    expect(statSync(book.path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(book.path)).mode & 0o777).toBe(0o700);
    expect(bookOf(undefined, "staging").path).not.toBe(book.path);
    const { candidates } = book.candidates();
    expect(candidates).toEqual([
      expect.objectContaining({
        testId: 1001,
        email: "ada@example.com",
        name: "Ada",
        testInvitationId: 7,
        sent: 2,
      }),
    ]);
    // The second invitation sent no end: the service resets it to none.
    expect(candidates[0]!.end).toBeUndefined();
  });

  it("skips a last line a crash cut short, and starts the next record on a line of its own", () => {
    const book = bookOf();
    book.record([{ how: "bulk", testId: 1001, email: "one@example.com" }]);
    appendFileSync(book.path, '{"test":1001,"email":"two@exa');
    expect(book.candidates().skipped).toBe(1);
    book.record([{ how: "bulk", testId: 1001, email: "three@example.com" }]);
    const { candidates, skipped } = book.candidates();
    expect(candidates.map((c) => c.email)).toEqual(["one@example.com", "three@example.com"]);
    expect(skipped).toBe(1);
    expect(lines(book.path).at(-1)).toMatch(/^\{"test":1001,"email":"three@example.com"/);
  });

  it("forgets a candidate the retention after their window ends (30 days after sending when no end was sent)", () => {
    const book = bookOf({ retentionDays: 10, maxRecords: 1000 });
    const now = Date.now();
    const at = (ms: number) => new Date(ms);
    const iso = (ms: number) => new Date(ms).toISOString();
    book.record(
      [{ how: "bulk", testId: 1001, email: "ended@example.com", end: iso(now - 11 * DAY) }],
      at(now - 20 * DAY),
    );
    book.record(
      [{ how: "bulk", testId: 1001, email: "within@example.com", end: iso(now - 9 * DAY) }],
      at(now - 20 * DAY),
    );
    book.record([{ how: "bulk", testId: 1001, email: "no-end-old@example.com" }], at(now - 41 * DAY));
    book.record([{ how: "bulk", testId: 1001, email: "no-end@example.com" }], at(now - 39 * DAY));
    // A reminder renews a candidate: their last window counts.
    book.record(
      [{ how: "bulk", testId: 1002, email: "renewed@example.com", end: iso(now - 30 * DAY) }],
      at(now - 40 * DAY),
    );
    book.record(
      [{ how: "remind", testId: 1002, email: "renewed@example.com", end: iso(now + DAY) }],
      at(now - DAY),
    );
    const kept = book.candidates(at(now)).candidates.map((c) => c.email);
    expect(kept).toEqual(["no-end@example.com", "within@example.com", "renewed@example.com"]);
    // Forgotten in the file too, the rest kept whole.
    const text = readFileSync(book.path, "utf8");
    expect(text).not.toContain("ended@");
    expect(text).not.toContain("no-end-old@");
    expect(lines(book.path).filter((l) => l.includes("renewed@"))).toHaveLength(2);
  });

  it("keeps at most its cap of records: the candidates invited longest ago go first", () => {
    const book = bookOf({ retentionDays: 90, maxRecords: 3 });
    const start = Date.now() - 100_000;
    for (let i = 0; i < 12; i++)
      book.record([{ how: "bulk", testId: 1001, email: `c${i}@example.com` }], new Date(start + i * 1000));
    // Appends compact once the file is past the cap's size: it never grows far beyond it.
    expect(lines(book.path).length).toBeLessThanOrEqual(8);
    const { candidates } = book.candidates();
    expect(candidates.map((c) => c.email)).toEqual(["c9@example.com", "c10@example.com", "c11@example.com"]);
    expect(lines(book.path)).toHaveLength(4);
  });
});

describe("the invitation book's lines", () => {
  it("are JSON whatever a name or a setting holds, read back as sent", () => {
    const book = bookOf();
    const name = 'Zoë "Z" O\'Neil\n\u2028 \\ 🙂';
    const keep = { callbackURL: 'https://example.com/cb?a=1&b="2"', timeZoneId: 1720 };
    book.record([
      {
        how: "invite",
        testId: 1001,
        email: "zoe@example.com",
        name,
        testInvitationId: 9,
        end: "2030-01-01T00:00:00Z",
        keep,
      },
      { how: "reattempt", testId: 1001, email: "zoe@example.com", previous: 9 },
    ]);
    for (const line of lines(book.path)) expect(() => JSON.parse(line)).not.toThrow();
    const [zoe] = book.candidates().candidates;
    expect(zoe).toMatchObject({
      email: "zoe@example.com",
      name,
      testInvitationId: 9,
      keep,
      sent: 2,
      how: "reattempt",
    });
  });
});

describe("the invitation book under a bulk run", () => {
  it("stays within twice its cap as chunks are booked, and keeps the newest records whole", () => {
    const book = bookOf({ retentionDays: 90, maxRecords: 500 });
    const start = Date.now() - 1_000_000;
    let most = 0;
    for (let chunk = 0; chunk < 40; chunk++) {
      const sent = Array.from({ length: 100 }, (_, i) => ({
        how: "bulk",
        testId: 1001,
        email: `c${chunk * 100 + i}@example.com`,
        name: `Candidate ${chunk * 100 + i}`,
      }));
      book.record(sent, new Date(start + chunk * 1000));
      most = Math.max(most, lines(book.path).length);
    }
    // The header, at most twice the cap, and the chunk that crossed it.
    expect(most).toBeLessThanOrEqual(1 + 2 * 500 + 100);
    const text = readFileSync(book.path, "utf8");
    expect(text.startsWith('{"book":1,')).toBe(true);
    const { candidates, skipped } = book.candidates();
    expect(skipped).toBe(0);
    expect(candidates).toHaveLength(500);
    expect(candidates[0]!.email).toBe("c3500@example.com");
    expect(candidates.at(-1)!.email).toBe("c3999@example.com");
  });

  it("is trimmed by the first append of a new process when another left it past twice its cap", () => {
    const big = bookOf({ retentionDays: 90, maxRecords: 5000 });
    const start = Date.now() - 1_000_000;
    big.record(
      Array.from({ length: 3000 }, (_, i) => ({ how: "bulk", testId: 1001, email: `o${i}@example.com` })),
      new Date(start),
    );
    // A torn last line, as a crash leaves it: counted as a line, and the next record starts on its own.
    appendFileSync(big.path, '{"test":1001,"email":"torn@exa');
    const book = bookOf({ retentionDays: 90, maxRecords: 1000 });
    book.record([{ how: "invite", testId: 1001, email: "new@example.com" }], new Date(start + 1000));
    expect(lines(book.path)).toHaveLength(1 + 1000);
    const emails = book.candidates().candidates.map((c) => c.email);
    expect(emails).toHaveLength(999);
    expect(emails[0]).toBe("o2002@example.com");
    expect(emails.at(-1)).toBe("new@example.com");
  });
});

describe("the invitation book's file", () => {
  it("is never read or written through a symbolic link: a link in its place is refused, its target untouched", () => {
    const book = bookOf();
    book.record([{ how: "invite", testId: 1001, email: "own@example.com" }]);
    const other = `${tmp.dir}/other.ndjson`;
    const planted =
      '{"test":1001,"email":"stranger@example.net","at":"2026-11-01T00:00:00Z","how":"invite"}\n';
    writeFileSync(other, planted);
    rmSync(book.path);
    symlinkSync(other, book.path);
    // Read through the link, `invite remind` would e-mail whoever the other file names.
    expect(() => book.candidates()).toThrow(/invitation book .* is a symbolic link/);
    expect(() => book.record([{ how: "invite", testId: 1001, email: "new@example.com" }])).toThrow(
      /invitation book .* is a symbolic link/,
    );
    expect(readFileSync(other, "utf8")).toBe(planted);
  });

  it("is refused at once when a FIFO is in its place: invite status and a reattempt's look-up do not wait on it", () => {
    const book = bookOf();
    book.record([{ how: "invite", testId: 1001, email: "own@example.com" }]);
    rmSync(book.path);
    execFileSync("mkfifo", [book.path]);
    // A writer that comes 8 s later: a read that waits for one is let go then, and fails the time guard.
    const late = `setTimeout(() => require("node:fs").openSync(${JSON.stringify(book.path)}, "w"), 8000)`;
    stopWhenTestEnds(spawn(process.execPath, ["-e", late], { stdio: "ignore" }));
    const started = Date.now();
    expect(() => book.candidates()).toThrow(/invitation book .* is not a file/);
    expect(Date.now() - started).toBeLessThan(4000);
  });
});
