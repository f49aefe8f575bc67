/**
 * How sizes and counts read in the texts users see: one place, so a limit reads the same in
 * --help, an error and the docs. Without Intl, whose first use costs a process milliseconds
 * (bench/ANALYSIS.md, "Figures from the code's comments").
 */

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/** 1234567 → "1,234,567". */
export function groupThousands(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * A size exactly, in the largest binary unit that divides it: "64 MiB", "512 KiB", "1500 bytes".
 * For limits and settings, whose value the reader may type back.
 */
export function formatBytes(bytes: number): string {
  if (bytes >= GiB && bytes % GiB === 0) return `${bytes / GiB} GiB`;
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= KiB && bytes % KiB === 0) return `${bytes / KiB} KiB`;
  return `${bytes} bytes`;
}

/** A size to a tenth of its unit: "812 bytes", "5.5 KiB", "8.6 MiB". For what was measured, not set. */
export function formatBytesRoughly(bytes: number): string {
  if (bytes < KiB) return `${bytes} bytes`;
  if (bytes < MiB) return `${(bytes / KiB).toFixed(1)} KiB`;
  return `${(bytes / MiB).toFixed(1)} MiB`;
}
