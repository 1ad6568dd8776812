import { Argument, type Command } from "commander";
import { examples, type GroupSetup } from "../shared/verbs.js";

export function register(group: Command, { lazy }: GroupSetup): void {
  examples(
    group
      .addArgument(new Argument("<shell>", "the shell to complete in").choices(["bash", "zsh", "fish"]))
      .action(lazy(() => import("./script.js"))),
    [
      "assess completion bash > ~/.local/share/bash-completion/completions/assess",
      "assess completion zsh > ~/.zfunc/_assess   # with fpath+=(~/.zfunc) in ~/.zshrc",
      "assess completion fish > ~/.config/fish/completions/assess.fish",
    ],
  );
}
