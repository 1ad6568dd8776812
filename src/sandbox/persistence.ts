/** The optional state file: the whole store as JSON, written whole (new-file.ts), debounced. */
import { existsSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { NewFile } from "../new-file.js";
import type { SandboxState } from "./state.js";

const FORMAT = "assess-sandbox-state";
const DEBOUNCE_MS = 50;

export function loadStateFile(path: string): SandboxState | undefined {
  if (!existsSync(path)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new Error(`Cannot read the sandbox state file ${path}: ${(e as Error).message}`);
  }
  const file = parsed as { format?: unknown; state?: { version?: unknown } };
  if (file?.format !== FORMAT || file.state?.version !== 1) {
    throw new Error(
      `${path} is not an assess sandbox state file (version 1); move it away or pick another path`,
    );
  }
  return file.state as SandboxState;
}

export class StateSaver {
  private readonly path: string;
  private readonly snapshot: () => SandboxState;
  private readonly onError: (e: Error) => void;
  private timer: NodeJS.Timeout | undefined;
  private saving: Promise<void> | undefined;
  private dirty = false;

  constructor(path: string, snapshot: () => SandboxState, onError: (e: Error) => void) {
    this.path = path;
    this.snapshot = snapshot;
    this.onError = onError;
  }

  /** Marks the state changed; a save follows within ~DEBOUNCE_MS (later if a save is still writing). */
  schedule(): void {
    this.dirty = true;
    if (this.timer || this.saving) return;
    this.timer = setTimeout(() => this.run(), DEBOUNCE_MS);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    while (this.saving) await this.saving;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.dirty) {
      this.dirty = false;
      await this.write().catch(this.onError);
    }
  }

  private run(): void {
    this.timer = undefined;
    if (!this.dirty) return;
    this.dirty = false;
    this.saving = this.write()
      .catch(this.onError)
      .finally(() => {
        this.saving = undefined;
        if (this.dirty) this.schedule();
      });
  }

  private async write(): Promise<void> {
    const json = JSON.stringify({
      format: FORMAT,
      savedAt: new Date().toISOString(),
      state: this.snapshot(),
    });
    await mkdir(dirname(this.path), { recursive: true });
    // The state may sit in a folder others write to (/tmp): never through a link planted at a guessable name.
    const file = new NewFile(this.path);
    try {
      file.write(json);
      file.commit();
    } finally {
      file.discard();
    }
  }
}
