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

/** The README's reference section: each command's help, as `--help` prints it. */
export async function referenceMarkdown(): Promise<string> {
  const texts = await helpTexts();
  return texts
    .map(({ path, help }) => `### \`${path}\`\n\n\`\`\`text\n${help.trimEnd()}\n\`\`\`\n`)
    .join("\n");
}
