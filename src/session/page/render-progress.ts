import type { SessionProgress } from "../types.js";
import { renderAttempt, renderTaskDone } from "./render-attempt.js";
import { renderReproduction, renderTests } from "./render-reproduction.js";
import { showText } from "./show-text.js";

/** Files, tasks and turns shown of one progress event; the rest is counted. */
const LIST_ROWS = 100;

/** One pipeline progress event as the page shows it: what the stage found or decided. */
export function renderProgress(event: SessionProgress): string {
  switch (event.stage) {
    case "located":
      return `<h3>Located ${event.files.length} file${event.files.length === 1 ? "" : "s"}</h3>${list(
        event.files.map((file) => {
          const verdict = file.kept === undefined ? "" : file.kept ? ` — <span class="approved">kept</span>` : ` — <span class="meta">dropped</span>`;
          const reason = file.reason ? `: ${showText(file.reason, 2000)}` : "";
          return `<code>${showText(file.path, 500)}</code> <span class="meta">(score ${file.score.toFixed(2)})</span>${verdict}${reason}`;
        }),
      )}`;
    case "tasks":
      return `<h3>Tasks</h3>${list(event.tasks.map((task) => `<code>${showText(task.path, 500)}</code>: ${showText(task.description, 4000)}`))}`;
    case "team":
      return `<h3>The team</h3>${list(event.developers.map((one) => `${showText(one.name, 200)} on <code>${showText(one.path, 500)}</code>: ${showText(one.role, 2000)}`))}`;
    case "kickoff":
      return `<h3>Kick-off meeting</h3><details><summary>${event.transcript.length} turns</summary>${list(
        event.transcript.map((turn) => `<b>${showText(turn.speaker, 200)}</b>: ${showText(turn.text, 8000)}`),
      )}</details>`;
    case "plan": {
      const steps = event.plan.steps.map((step, index) => `Step ${index + 1}: ${step.map((path) => `<code>${showText(path, 500)}</code>`).join(", ")}`);
      const note = event.plan.note ? `<p class="meta">${showText(event.plan.note, 2000)}</p>` : "";
      return `<h3>Plan</h3>${list(steps)}<p>${showText(event.plan.rationale, 8000)}</p>${note}`;
    }
    case "tests":
      return renderTests(event.tests);
    case "reproduction":
      return renderReproduction(event.reproduction);
    case "attempt":
      return renderAttempt(event.path, event.attempt);
    case "task-done":
      return renderTaskDone(event.outcome);
    default:
      // A stage this version does not know (a newer recorder's): named, not guessed at.
      return `<p class="meta">Progress of stage ${showText(String((event as { stage: unknown }).stage), 100)}.</p>`;
  }
}

function list(rows: string[]): string {
  const more = rows.length > LIST_ROWS ? `<li class="more">${rows.length - LIST_ROWS} more</li>` : "";
  return `<ul class="rows">${rows
    .slice(0, LIST_ROWS)
    .map((row) => `<li>${row}</li>`)
    .join("")}${more}</ul>`;
}
