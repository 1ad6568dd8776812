/**
 * What must stop when the test that started it ends: its child processes, its in-process runs. A test that
 * times out leaves what it awaited running: a bulk run of the built CLI went on sending to the file's
 * sandbox, and the next test counted its 89 requests as its own. So what a test starts is stopped when that
 * test ends (passed, failed or timed out: vitest's onTestFinished), and what a file starts outside a test (in
 * a beforeAll) or in a concurrent test when the file ends (test/setup.ts, after each file's last test).
 * A module of its own, importing nothing: the setup file loads it before a test file's vi.mock applies.
 */
export const untilFileEnds = new Set<() => void | Promise<void>>();

export async function stopWhatTheFileLeft(): Promise<void> {
  await Promise.all([...untilFileEnds].map((stop) => stop()));
}
