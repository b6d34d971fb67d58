// A reasoning model writes its draft first, inside <think>…</think>; the answer comes after it.
const LEADING_DRAFT = /^\s*<think>[\s\S]*?<\/think>/;

/**
 * `answer` without the `<think>…</think>` drafts at its very start (a reasoning model's thinking, not its answer). A
 * `<think>` anywhere later is part of the answer (a string in the code being edited, a JSON value) and stays as written.
 */
export function withoutThinkDraft(answer: string): string {
  let text = answer;
  for (let match = LEADING_DRAFT.exec(text); match; match = LEADING_DRAFT.exec(text)) text = text.slice(match[0].length);
  return text;
}
