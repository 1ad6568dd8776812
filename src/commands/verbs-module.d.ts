/** The verbs of the tree, made from their files at build and test time (./verb-files.mjs). */
declare module "assess:verbs" {
  export const VERBS: ReadonlyArray<{
    /** `["invite", "bulk"]`; `["api"]` for a group's own action. */
    path: string[];
    load(): Promise<{ default: import("./shared/verb.js").Verb }>;
    /** The verb's spec as JSON, where the build wrote it (dist/): help and the tree need no verb module then. */
    specText?: string;
  }>;
}
