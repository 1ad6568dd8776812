/**
 * A large CSV file is checked in two halves at once, the second in a worker thread (src/bulk/rows/parallel-check.ts): the
 * outcome must be that of one reader going through the whole file — the same rows found invalid, at the same
 * lines, the same syntax errors — whatever falls in which half.
 */
import { statSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { checkWorker, type RunOptions, runBin, useTempDir, useTestEnv } from "../helpers/cli.js";
import { bulkRequests } from "./helpers.js";

/**
 * Rows of a file (~100 KB) above the size from which these runs split their check (`splitFrom`): the same path
 * as a file above the 8 MiB where a second thread starts to pay, at a fiftieth of the size. The built CLI's
 * test keeps a file above 8 MiB, and npm run bench:large -- --only split checks one of millions of rows.
 */
const ROWS = 2_000;
const SPLIT_FROM = 64 * 1024;

const env = useTestEnv();
const tmp = useTempDir("assess-split-");

const row = (i: number) => `candidate${i}@example.com,Candidate Number ${i}\n`;

/** Lines 2.. of the file: `rows` rows, with `replace(i)` used instead where it returns a string. */
function rowsText(from: number, to: number, replace: (i: number) => string | undefined = () => undefined) {
  let text = "";
  for (let i = from; i < to; i++) text += replace(i) ?? row(i);
  return text;
}

let n = 0;
/** Runs the same command with and without the worker (one pass), each with a ledger of its own. */
async function both(argv: string[]) {
  const run = (options: RunOptions) =>
    env.run([...argv, "--debug"], {
      ...options,
      env: { ASSESS_CONFIG_DIR: tmp.file(`config-${n++}`) },
    });
  const mark = env.sandbox.requests.length;
  const split = await run({ checkWorker, splitFrom: SPLIT_FROM });
  const splitRequests = bulkRequests(env.sandbox, mark).length;
  const onePass = await run({});
  return { split, onePass, splitRequests };
}

/** The error block: the first line of stderr that says "error:" and the lines listing rows after it. */
function errorBlock(stderr: string): string[] {
  const lines = stderr.split("\n");
  const at = lines.findIndex((line) => line.startsWith("error:"));
  return at === -1 ? [] : lines.slice(at).filter((line) => !line.startsWith("[debug]"));
}

describe("a large file checked in two halves", () => {
  it("finds invalid rows in both halves at the lines one pass finds them, quoted line breaks counted", async () => {
    const path = tmp.file("invalid.csv");
    // Quoted names with line breaks in both halves shift every later line number by one each.
    const replace = (i: number) =>
      i === 5
        ? "not-an-email,Ada\n"
        : i === 100 || i === 1_500
          ? `multi${i}@example.com,"Two\nLines"\n`
          : i === 1_700
            ? ",Nobody\n"
            : i === ROWS - 1
              ? "last@,Last\n"
              : undefined;
    writeFileSync(path, `email,name\n${rowsText(0, ROWS, replace)}`);
    const { split, onePass, splitRequests } = await both(["invite", "bulk", path, "--test", "1001"]);

    expect(split.stderr).toMatch(/\[debug\] checking .*invalid\.csv in two halves at once/);
    expect(split.code).toBe(2);
    expect(splitRequests).toBe(0);
    const block = errorBlock(split.stderr);
    expect(block[0]).toBe(`error: 3 of ${ROWS} rows are invalid; nothing was sent:`);
    expect(block.slice(1, 4)).toEqual([
      `  ${path}:7: email: "not-an-email" is not a valid e-mail address`,
      `  ${path}:1704: email: empty`,
      `  ${path}:${ROWS + 3}: email: "last@" is not a valid e-mail address`,
    ]);
    expect(onePass.code).toBe(2);
    expect(onePass.stderr).not.toContain("two halves");
    expect(errorBlock(onePass.stderr)).toEqual(block);
  });

  it("a file below the size it splits from is checked in one pass, the worker there", async () => {
    const path = tmp.file("small.csv");
    writeFileSync(
      path,
      `email,name\n${rowsText(0, ROWS, (i) => (i === 1_900 ? "late@,Late\n" : undefined))}`,
    );
    const { size } = statSync(path);
    const run = await env.run(["invite", "bulk", path, "--test", "1001", "--debug"], {
      checkWorker,
      splitFrom: size + 1,
      env: { ASSESS_CONFIG_DIR: tmp.file("config-small") },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).not.toContain("two halves");
    expect(errorBlock(run.stderr).slice(0, 2)).toEqual([
      `error: 1 of ${ROWS} rows is invalid; nothing was sent:`,
      `  ${path}:1902: email: "late@" is not a valid e-mail address`,
    ]);
  });

  it("a quoted value across the middle of the file: the whole file is checked in one pass, every row counted", async () => {
    const path = tmp.file("across.csv");
    // ~40 KB of quoted lines placed so that the middle of the file is inside them: the cut falls inside quotes.
    // An invalid last row keeps the run from sending (`npm run bench:large -- --only split` sends the file whole).
    const quoted = `across@example.com,"${"a line of a long quoted value\n".repeat(1_400)}"\n`;
    const header = "email,name\n";
    const rows = Array.from({ length: ROWS }, (_, i) => row(i));
    rows.push("last@,Last\n");
    const total = header.length + rows.join("").length + quoted.length;
    let before = header.length;
    let k = 0;
    while (before + rows[k]!.length < (total - quoted.length) / 2) before += rows[k++]!.length;
    writeFileSync(path, `${header}${rows.slice(0, k).join("")}${quoted}${rows.slice(k).join("")}`);
    const mark = env.sandbox.requests.length;
    const split = await env.run(["invite", "bulk", path, "--test", "1001", "--debug"], {
      checkWorker,
      splitFrom: SPLIT_FROM,
      env: { ASSESS_CONFIG_DIR: tmp.file("config-across") },
    });

    expect(split.stderr).toMatch(
      /the first half ends inside a quoted value.*checking the whole file in one pass/,
    );
    expect(split.code).toBe(2);
    // The quoted value is one row: ROWS + 2 rows, the last at the line after the quoted value's 1,400 lines.
    expect(errorBlock(split.stderr).slice(0, 2)).toEqual([
      `error: 1 of ${ROWS + 2} rows is invalid; nothing was sent:`,
      `  ${path}:${ROWS + 1_403}: email: "last@" is not a valid e-mail address`,
    ]);
    expect(bulkRequests(env.sandbox, mark)).toEqual([]);
  });

  it("a quote that never closes, in the second half: exit 2 at its line", async () => {
    const path = tmp.file("unclosed.csv");
    writeFileSync(
      path,
      `email,name\n${rowsText(0, ROWS, (i) => (i === 1_900 ? `open${i}@example.com,"Never closed\n` : undefined))}`,
    );
    const { split, onePass, splitRequests } = await both(["invite", "bulk", path, "--test", "1001"]);

    expect(split.stderr).toContain("two halves at once");
    expect(split.code).toBe(2);
    expect(splitRequests).toBe(0);
    expect(errorBlock(split.stderr)[0]).toBe(
      `error: ${path}:1902: a quoted field starts on this line and never closes (unbalanced quotes)`,
    );
    expect(errorBlock(onePass.stderr)).toEqual(errorBlock(split.stderr));
  });

  it("a byte that is not UTF-8 in the second half: exit 2 at its line, as one pass says it", async () => {
    const path = tmp.file("latin1.csv");
    const text = `email,name\n${rowsText(0, ROWS, (i) => (i === 1_900 ? `cafe${i}@example.com,Caf\u00e9\n` : undefined))}`;
    // The é as Latin-1 writes it: one byte, 0xE9, not a UTF-8 sequence.
    writeFileSync(path, Buffer.from(text, "latin1"));
    const { split, onePass, splitRequests } = await both(["invite", "bulk", path, "--test", "1001"]);

    expect(split.stderr).toContain("two halves at once");
    expect(split.code).toBe(2);
    expect(splitRequests).toBe(0);
    expect(errorBlock(split.stderr)[0]).toBe(`error: ${path}:1902: not UTF-8 text`);
    expect(errorBlock(onePass.stderr)).toEqual(errorBlock(split.stderr));
  });

  it("a worker thread that fails: the whole file is checked in one pass after all", async () => {
    const path = tmp.file("failing-worker.csv");
    writeFileSync(
      path,
      `email,name\n${rowsText(0, ROWS, (i) => (i === 1_900 ? "late@,Late\n" : undefined))}`,
    );
    const broken = tmp.file("broken-worker.cjs");
    writeFileSync(broken, 'throw new Error("the worker broke");\n');
    const run = await env.run(["invite", "bulk", path, "--test", "1001", "--debug"], {
      checkWorker: pathToFileURL(broken),
      splitFrom: SPLIT_FROM,
      env: { ASSESS_CONFIG_DIR: tmp.file("config-broken") },
    });
    expect(run.stderr).toMatch(
      /the worker thread failed \(the worker broke\): checking the whole file in one pass/,
    );
    expect(run.code).toBe(2);
    expect(errorBlock(run.stderr).slice(0, 2)).toEqual([
      `error: 1 of ${ROWS} rows is invalid; nothing was sent:`,
      `  ${path}:1902: email: "late@" is not a valid e-mail address`,
    ]);
  });

  it("a worker thread that fails on a valid file: the one pass's rows are the ones sent, each once", async () => {
    const path = tmp.file("failing-worker-valid.csv");
    writeFileSync(path, `email,name\n${rowsText(0, ROWS)}`);
    const broken = tmp.file("broken-worker-2.cjs");
    writeFileSync(broken, 'throw new Error("the worker broke");\n');
    const mark = env.sandbox.requests.length;
    const run = await env.run(["invite", "bulk", path, "--test", "1001", "--debug", "--json"], {
      checkWorker: pathToFileURL(broken),
      splitFrom: SPLIT_FROM,
      env: { ASSESS_CONFIG_DIR: tmp.file("config-broken-valid") },
    });
    expect(run.stderr).toMatch(/the worker thread failed \(the worker broke\)/);
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({
      rows: ROWS,
      valid: ROWS,
      sent: ROWS,
      chunks: { total: ROWS / 1_000 },
    });
    const emails = bulkRequests(env.sandbox, mark).flatMap((r) =>
      (r.body as { candidates: Array<{ email: string }> }).candidates.map((c) => c.email),
    );
    expect(emails).toHaveLength(ROWS);
    expect(new Set(emails).size).toBe(ROWS);
  });

  it("the built CLI finds its worker beside it (bin/assess.js → dist/check-worker.cjs), from 8 MiB", async () => {
    const path = tmp.file("built.csv");
    // ~10 MB: the built CLI splits from its own size.
    writeFileSync(
      path,
      `email,name\n${rowsText(0, 200_000, (i) => (i === 190_000 ? "late@,Late\n" : undefined))}`,
    );
    const run = await runBin(["invite", "bulk", path, "--test", "1001", "--debug"], {
      env: { ...env.env, ASSESS_CONFIG_DIR: tmp.file("config-built") },
    });
    expect(run.stderr).toContain("two halves at once");
    expect(run.stderr).toContain(`${path}:190002: email: "late@" is not a valid e-mail address`);
    expect(run.code).toBe(2);
  });

  it("employee files too: an invalid row of the second half at its line", async () => {
    const path = tmp.file("employees.csv");
    let text = "email,firstName,lastName,externalEmployeeId,department\n";
    for (let i = 0; i < 1_300; i++) {
      text +=
        i === 1_000
          ? `employee${i}@example.com,First,Last,EXT-${i},Dept,extra\n`
          : `employee${i}@example.com,First${i},Last${i},EXT-${i},Department ${i % 50}\n`;
    }
    writeFileSync(path, text);
    const { split, onePass, splitRequests } = await both(["employees", "upsert", path]);

    expect(split.stderr).toContain("two halves at once");
    expect(split.code).toBe(2);
    expect(splitRequests).toBe(0);
    const block = errorBlock(split.stderr);
    expect(block[0]).toBe("error: 1 of 1300 rows is invalid; nothing was sent:");
    expect(block[1]).toMatch(
      new RegExp(`^  ${path.replace(/[.]/g, "\\.")}:1002: 6 fields but the header has 5`),
    );
    expect(errorBlock(onePass.stderr)).toEqual(block);
  });
});
