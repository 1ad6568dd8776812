import { PassThrough } from "node:stream";
import type { Command } from "commander";
import { buildProgram } from "../../src/cli.js";
import { Context } from "../../src/context.js";

/** Every command of the tree with the text its `--help` prints (80 columns wide, as when piped). */
export async function helpTexts(): Promise<Array<{ path: string; help: string; leaf: boolean }>> {
  // Help goes out through the program's own output (src/program.ts), which wraps it: a pipe of 80 columns.
  let captured = "";
  const stdout = Object.assign(new PassThrough(), {
    write(text: string) {
      captured += text;
      return true;
    },
  });
  const program = async (argv: string[] | "all") => {
    const io = { stdout, stderr: new PassThrough(), stdin: new PassThrough(), env: {} };
    return buildProgram(new Context(io, new AbortController().signal), () => undefined, argv);
  };
  const helpOf = (command: Command) => {
    captured = "";
    command.outputHelp();
    return captured;
  };
  // `assess --help` names no group, so the root's help is that of the tree of one-line group stubs.
  const texts = [{ path: "assess", help: helpOf(await program([])), leaf: false }];
  const visit = (command: Command, path: string[]) => {
    for (const sub of command.commands) {
      const here = [...path, sub.name()];
      texts.push({ path: ["assess", ...here].join(" "), help: helpOf(sub), leaf: sub.commands.length === 0 });
      visit(sub, here);
    }
  };
  visit(await program("all"), []);
  return texts;
}

/** The folder of the generated reference, one page per command group (`docs/reference/invite.md`). */
export const REFERENCE_DIR = "docs/reference";

/**
 * The reference pages: for each command group (and `assess.md` for the root and its global options), every
 * command's help as `--help` prints it. File name → content.
 */
export async function referencePages(): Promise<Map<string, string>> {
  const pages = new Map<string, Array<{ path: string; help: string }>>();
  for (const text of await helpTexts()) {
    const group = text.path.split(" ")[1] ?? "assess";
    const page = pages.get(group) ?? [];
    page.push(text);
    pages.set(group, page);
  }
  const out = new Map<string, string>();
  for (const [group, texts] of pages) {
    const title =
      group === "assess" ? "`assess`: global options and the command groups" : `\`assess ${group}\``;
    const body = texts
      .map(({ path, help }) => `## \`${path}\`\n\n\`\`\`text\n${help.trimEnd()}\n\`\`\`\n`)
      .join("\n");
    out.set(
      `${group}.md`,
      `# ${title}\n\n<!-- Generated from --help by test/docs/readme.test.ts: do not edit; UPDATE_DOCS=1 npx vitest run test/docs/readme.test.ts rewrites it. -->\n\n${body}`,
    );
  }
  return out;
}
