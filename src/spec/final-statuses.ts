/** How an attempt ends, as the service spells it in a report's status (and the sandbox's `complete` takes it). */
export const FINAL_STATUSES = ["Complete", "TestLeft", "Terminated"] as const;
export type FinalStatus = (typeof FINAL_STATUSES)[number];
