import { afterAll, afterEach } from "vitest";
import { assertNoViolations } from "./violations.js";

// A vitest setup file: a test (or a file's beforeAll) during which the strict fake GitHub saw a request or an answer
// that breaks GitHub's published descriptions fails, with each violation named.
afterEach(assertNoViolations);
afterAll(assertNoViolations);
