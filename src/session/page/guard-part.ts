import { escapeHtml } from "../../lib/escape-html.js";
import { showText } from "./show-text.js";

/**
 * A part of the page (`id`: its element's id) as `render` makes it, or, when an entry it reads has a shape it cannot
 * show (a record of another version, a damaged one), the part saying so: one bad entry never costs the whole page.
 */
export function guardPart(id: string, render: () => string): string {
  try {
    return render();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return `<section id="${escapeHtml(id)}"><p class="error">This part of the session could not be shown: ${showText(why, 500)}</p></section>`;
  }
}
