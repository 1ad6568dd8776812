/**
 * The folder of the ledgers and the spools of checked rows (ASSESS_CONFIG_DIR/ledgers): what it holds decides
 * what a rerun sends, so it is held to the config folder's rule (config/private.ts): 0700, and refused (exit 2,
 * before anything is sent) when it is a symbolic link, writable by others, or another user's.
 */
import { mkdirSync } from "node:fs";
import { checkPrivateDir } from "../../config/private.js";

/** Makes the folder if it is missing (0700), then checks it. */
export function ensureLedgerDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } finally {
    // Also when mkdir failed: a link to nowhere in the folder's place is named, rather than ENOENT.
    checkLedgerDir(dir);
  }
}

/** Checks the folder if it is there (a dry run reads ledgers but makes nothing). */
export function checkLedgerDir(dir: string): void {
  checkPrivateDir(dir, "where bulk runs keep their ledgers");
}
