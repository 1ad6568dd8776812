/**
 * The folder of the ledgers (ASSESS_CONFIG_DIR/ledgers), which also holds the spools of checked rows: what it
 * says decides what a rerun sends again, and the spools hold candidates' data. So it is held to the config
 * folder's rule (config/private.ts): made 0700, and refused (exit 2, before anything is sent) when it is a
 * symbolic link, when other users can write to it, or when another user owns it.
 */
import { mkdirSync } from "node:fs";
import { checkPrivateDir } from "../../config/private.js";

const WHAT = "where bulk runs keep their ledgers";

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
  checkPrivateDir(dir, WHAT);
}
