/** One figure of the bench, against its floor measured in the same run. */
export interface Row {
  readonly name: string;
  readonly value: number;
  readonly unit: 'ms' | 'MiB' | 'KiB' | 'scripts' | 'requests';
  readonly floorName: string;
  readonly floor: number;
  /** What the goal allows, as a test of value and floor, and how it reads. */
  readonly goal?: { readonly text: string; readonly met: (value: number, floor: number) => boolean };
  /** Anything the figure alone doesn't say (runs refused, say). */
  readonly note?: string;
}

export interface BenchContext {
  readonly quick: boolean;
  /** Rounds of each interleaved measurement. */
  readonly rounds: number;
  readonly log: (line: string) => void;
}

/** A goal on the ratio of value to floor. */
export const atMost = (ratio: number): Row['goal'] => ({ text: `≤ ${ratio} ×`, met: (value, floor) => value <= ratio * floor });

function format(value: number, unit: string): string {
  if (Number.isInteger(value) && (unit === 'scripts' || unit === 'requests')) return `${value} ${unit}`;
  return `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ${unit}`;
}

export function renderRows(rows: readonly Row[]): string {
  const lines = ['| measurement | median | floor | floor median | ratio | goal | met |', '|---|---|---|---|---|---|---|'];
  for (const row of rows) {
    const goal = row.goal?.text ?? '—';
    const met = row.goal ? (row.goal.met(row.value, row.floor) ? 'yes' : '**no**') : '—';
    const name = row.note === undefined ? row.name : `${row.name} (${row.note})`;
    lines.push(
      `| ${name} | ${format(row.value, row.unit)} | ${row.floorName} | ${format(row.floor, row.unit)} | ${row.floor === 0 ? '—' : (row.value / row.floor).toFixed(2)} | ${goal} | ${met} |`,
    );
  }
  return lines.join('\n');
}
