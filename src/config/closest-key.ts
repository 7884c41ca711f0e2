/**
 * The known key a misspelt one most likely meant: the nearest by edit distance (Levenshtein, letters
 * compared case-blind), when at most a third of its letters differ; undefined when none is that near.
 * Hand-written: 15 lines against a dependency for one suggestion.
 */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const word = key.toLowerCase();
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(word, candidate.toLowerCase());
    if (distance <= Math.max(1, Math.floor(candidate.length / 3)) && (!best || distance < best.distance))
      best = { key: candidate, distance };
  }
  return best?.key;
}

/** Insertions, deletions and substitutions that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length];
}
