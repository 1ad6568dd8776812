/**
 * The folder of the ledgers (ASSESS_CONFIG_DIR/ledgers), which also holds the spools of checked rows: what it
 * says decides what a rerun sends again, and the spools hold candidates' data. So it must be a real folder of
 * this machine's user alone: made 0700, and refused (exit 2, before anything is sent) when it is a symbolic
 * link or when other users can write to it (they could plant a ledger, or a link in place of one).
 */
import { lstatSync, mkdirSync, type Stats } from "node:fs";
import { UsageError } from "../../errors.js";
import { shellWord } from "../../files.js";

/** Makes the folder if it is missing (0700), then checks it (`checkLedgerDir`). */
export function ensureLedgerDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    // A link to nowhere in the folder's place: say so rather than ENOENT.
    checkLedgerDir(dir);
    throw error;
  }
  checkLedgerDir(dir);
}

/** Checks the folder if it is there (a dry run reads ledgers but makes nothing). */
export function checkLedgerDir(dir: string): void {
  let info: Stats;
  try {
    info = lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  const where = `${dir} (where bulk runs keep their ledgers)`;
  if (info.isSymbolicLink()) {
    throw new UsageError(
      `${where} is a symbolic link; assess keeps its ledgers only in a folder of its own`,
      "Put the folder it points to in its place if those ledgers are yours (without them, earlier runs' rows would be sent again), or point ASSESS_CONFIG_DIR at another folder; nothing was sent.",
    );
  }
  // A file in its place: making the folder or a file in it fails, and the caller says so (spool.ts, ledger.ts).
  if (!info.isDirectory()) return;
  // Windows has no such mode bits (its folders show as 0666 or 0777 here).
  if (process.platform !== "win32" && (info.mode & 0o022) !== 0) {
    throw new UsageError(
      `${where} can be written by other users (mode ${(info.mode & 0o777).toString(8).padStart(4, "0")})`,
      `Run \`chmod 700 ${shellWord(dir)}\` if it is yours, or point ASSESS_CONFIG_DIR at a folder of your own; nothing was sent.`,
    );
  }
}
