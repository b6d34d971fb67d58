// The pipeline's face: what the jobs, the app and the doors use. Outside src/pipeline/, import from here, from types.ts
// and revise/types.ts (what the stages hand back) or from errors.ts; .dependency-cruiser.cjs holds that rule. Nothing in
// src/pipeline/ imports this file, so the face makes no cycle.
// The flows, and the language servers a flow runs inside.
export { resolveIssue } from "./resolve-issue.js";
export { revisePullRequest } from "./revise/revise-pull-request.js";
export { locateFiles } from "./locate/locate-files.js";
export { shownPaths } from "./locate/judge-relevance.js";
export { withLanguageServers } from "./with-language-servers.js";
// What a job holds across its stages: its clone's index and the terms remembered across jobs.
export { openJobIndex, type JobIndex } from "./locate/open-job-index.js";
export { TermMemo, type TermMemory } from "./locate/remember-terms.js";
// A result in words: the report, and the lines the status comments and the CLI show.
export { renderReport } from "./report/render-report.js";
export { describeEnvironment, describeSetupNetwork } from "./report/render-environment.js";
export { selectNeedsHuman } from "./report/select-needs-human.js";
export { summarizeCandidates } from "./report/summarize-candidates.js";
export { describeAttemptReproduction } from "./report/describe-attempt-reproduction.js";
export { describeReproduction, reproductionSettled } from "./reproduce/describe-reproduction.js";
export { describeAttemptTests, describeExit, describeTestsReport, runToShow } from "./tests/describe-test-verdict.js";
// For `magis env build`: a checkout's declared environment built (or reused) and kept, without a job.
export { prepareEnvironment, type PreparedEnvironment } from "./tests/prepare-environment.js";
// For `magis diagnose`: which of the problems a change adds the repository's config refuses.
export { refusedProblems } from "./code/check-semantics.js";
