/**
 * The proctoring modes of an invitation and a test link: the one list the API schema, the invite and links
 * flags, the MCP tools and the sandbox all read.
 */
export const PROCTORING_MODES = ["disabled", "image", "video"] as const;
export type ProctoringMode = (typeof PROCTORING_MODES)[number];
