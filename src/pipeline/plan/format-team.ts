import type { DeveloperRole, FileTask, MeetingTurn } from "../types.js";

/** The team as the meeting prompts list it: each Developer with its file and task. */
export function formatTeam(tasks: FileTask[], developers: DeveloperRole[]): string {
  return developers
    .map((dev) => {
      const task = tasks.find((t) => t.path === dev.path);
      return `- **${dev.name}** owns \`${dev.path}\`: ${task?.description ?? "(no task)"}`;
    })
    .join("\n");
}

/** The prompt variables that present one Developer to itself: its name, role, file and task. */
export function developerVars(dev: DeveloperRole, tasks: FileTask[]): Record<"name" | "role" | "path" | "task", string> {
  return { name: dev.name, role: dev.role, path: dev.path, task: tasks.find((t) => t.path === dev.path)?.description ?? "" };
}

/** A meeting transcript as the later speakers hear it: one "Speaker: text" paragraph per turn. */
export function formatTranscript(transcript: MeetingTurn[]): string {
  if (transcript.length === 0) return "(nobody has spoken yet)";
  return transcript.map((turn) => `${turn.speaker}: ${turn.text.trim()}`).join("\n\n");
}
