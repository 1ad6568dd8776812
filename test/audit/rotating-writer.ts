/**
 * One of the writers of test/audit/rotation.test.ts, run as a process of its own (bundled by the test):
 * `node writer.mjs <root> <name> <other> <rounds> <maxBytes>`. In each round's config folder (`<root>/round<i>`,
 * made full by the test) it waits for the other writer (a file each, no clock), then writes one line at once,
 * so that both find the log full together. A refused write or a warning goes to stderr.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AuditLog, actingAs } from "../../src/config/audit.js";

const [root, name, other, rounds, maxBytes] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
for (let round = 0; round < Number(rounds); round++) {
  writeFileSync(join(root, `ready-${round}-${name}`), "");
  while (!existsSync(join(root, `ready-${round}-${other}`))) {
    // Spin: the two start this round's write within microseconds of each other.
  }
  const log = new AuditLog(
    join(root, `round${round}`),
    { surface: "cli", profile: "default", env: {} },
    Number(maxBytes),
  );
  try {
    // The writer's name as its actor: which line is whose.
    actingAs({ surface: "cli", actor: name }, () =>
      log
        .open({ operation: `round${round}`, method: "POST" }, (line) => process.stderr.write(`${line}\n`))
        .done(),
    );
  } catch (error) {
    process.stderr.write(`round ${round}: ${(error as Error).message}\n`);
  }
}
