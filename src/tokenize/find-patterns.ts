/** The configured patterns (`settings.tokenize.patterns`): each match, however it looks, a `[SECRET_n]`. */
import type { Finder } from './found.js';

export function patternFinder(patterns: readonly string[], label: string): Finder {
  const compiled = patterns.map((pattern) => new RegExp(pattern, 'g'));
  return (text, found) => {
    for (const pattern of compiled) {
      pattern.lastIndex = 0;
      for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
        // A part of the pattern that can match nothing (an alternative, say) must not stall the scan.
        if (match[0] === '') {
          pattern.lastIndex++;
          continue;
        }
        found.push({ start: match.index, end: match.index + match[0].length, label, value: match[0] });
      }
    }
  };
}
