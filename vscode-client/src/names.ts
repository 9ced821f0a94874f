// Where the extracted name is after an extract refactoring, so the editor can start a rename
// on it ("rename after extract").

function isIdentifierChar(ch: string | undefined): boolean {
  return ch !== undefined && /[A-Za-z0-9_]/.test(ch);
}

/** Offsets of whole-word occurrences of `name` in `text`. */
export function occurrences(text: string, name: string): number[] {
  const found: number[] = [];
  if (name.length === 0) {
    return found;
  }
  let at = text.indexOf(name);
  while (at >= 0) {
    if (!isIdentifierChar(text[at - 1]) && !isIdentifierChar(text[at + name.length])) {
      found.push(at);
    }
    at = text.indexOf(name, at + 1);
  }
  return found;
}

/**
 * The occurrence of `name` nearest to `offset` (where the extracted code was): that is the
 * new call site or variable use, which is where the user expects the rename box.
 */
export function nearestOccurrence(text: string, name: string, offset: number): number | undefined {
  let best: number | undefined;
  for (const at of occurrences(text, name)) {
    if (best === undefined || Math.abs(at - offset) < Math.abs(best - offset)) {
      best = at;
    }
  }
  return best;
}
