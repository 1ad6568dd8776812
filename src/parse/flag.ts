/** A flag's or argument's name in ./flags.ts's messages, filled in by verbs.ts (which must not load zod). */
export const FLAG = "{flag}";
