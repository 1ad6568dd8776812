import { execFileSync } from "node:child_process";
import { join } from "node:path";

/**
 * Builds dist/ once before any test file runs: smoke tests spawn the built CLI as a user would, and building
 * inside test files would let parallel files rewrite dist/ under each other.
 */
export default function setup(): void {
  execFileSync("npm", ["run", "build", "--silent"], {
    cwd: join(import.meta.dirname, ".."),
    stdio: "inherit",
  });
}
