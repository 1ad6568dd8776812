/**
 * Runs before each test file (vitest's setupFiles), in the file's own context even where test files share a
 * worker and its modules (isolate: false).
 */
import { afterAll } from "vitest";
import { stopWhatTheFileLeft } from "./helpers/stops.js";

afterAll(stopWhatTheFileLeft);
