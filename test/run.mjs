/**
 * `npm test`: the typecheck, the lint and the import-cycle check run beside vitest, not before it. Each check is
 * single-threaded and the test files wait on sockets and child processes much of the time, so the two cores of a
 * small machine are busy together instead of one after the other. A check's output is printed whole when it ends;
 * the exit code is the first non-zero one (a check's, else vitest's). Arguments go to vitest.
 */
import { spawn } from "node:child_process";

const checks = ["typecheck", "lint", "check:cycles"].map((script) => {
  const child = spawn("npm", ["run", "--silent", script], { stdio: ["ignore", "pipe", "pipe"] });
  const output = [];
  child.stdout.on("data", (chunk) => output.push(chunk));
  child.stderr.on("data", (chunk) => output.push(chunk));
  return new Promise((resolve) => {
    child.on("close", (code) => {
      if (code !== 0)
        process.stderr.write(`\nnpm run ${script} failed (exit ${code}):\n${Buffer.concat(output)}\n`);
      resolve(code ?? 1);
    });
  });
});

const vitest = spawn("npx", ["vitest", "run", ...process.argv.slice(2)], { stdio: "inherit" });
const tests = new Promise((resolve) => vitest.on("close", (code) => resolve(code ?? 1)));

const codes = await Promise.all([...checks, tests]);
process.exitCode = codes.find((code) => code !== 0) ?? 0;
