/** The text, trimmed, with a closing period unless it ends a sentence already (model reasons and stage messages often do). */
export function endSentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
