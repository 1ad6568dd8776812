/**
 * Stands for a flag's or argument's name in the messages of ./flags.ts, which a value's rules are written
 * without knowing; src/commands/shared/verbs.ts puts in `--page-size` or `testId`. A module of its own so that
^ * verbs.ts, loaded by every command line, does not load zod with ./flags.ts.
 */
export const FLAG = "{flag}";
