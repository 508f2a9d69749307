/**
 * Five-field cron expressions (`minute hour day-of-month month day-of-week`, the classic crontab
 * format) for the `schedule` tool: `*`, numbers, ranges `a-b`, steps `*\/n` and `a-b/n`, lists
 * `a,b`; day-of-week 0–7 (0 and 7 are Sunday); when both day fields are restricted a day matching
 * either runs (as cron does). Times are the harness's local time. Macros (`@daily`) and names
 * (`MON`) are refused with a message saying what is accepted.
 */
export interface CronSchedule {
  readonly expression: string;
  /** The first run strictly after `after` (whole minutes), or undefined when none comes within a year and a day. */
  nextAfter(after: Date): Date | undefined;
}

const FIELDS = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12 },
  { name: "day of week", min: 0, max: 7 },
] as const;

/** Parses `expression`; throws an Error saying what is wrong. */
export function parseCron(expression: string): CronSchedule {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5)
    throw new Error(
      `cron must have 5 fields (minute hour day-of-month month day-of-week, e.g. "*/15 9-17 * * 1-5"), got ${JSON.stringify(expression)}`,
    );
  const sets = parts.map((part, index) => parseField(part, FIELDS[index] as (typeof FIELDS)[number]));
  const [minutes, hours, days, months, weekdaysRaw] = sets as [
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
  ];
  const weekdays = new Set([...weekdaysRaw].map((day) => day % 7));
  const dayRestricted = parts[2] !== "*";
  const weekdayRestricted = parts[4] !== "*";
  const matches = (date: Date): boolean => {
    if (!minutes.has(date.getMinutes()) || !hours.has(date.getHours()) || !months.has(date.getMonth() + 1))
      return false;
    const dayOk = days.has(date.getDate());
    const weekdayOk = weekdays.has(date.getDay());
    if (dayRestricted && weekdayRestricted) return dayOk || weekdayOk;
    return (!dayRestricted || dayOk) && (!weekdayRestricted || weekdayOk);
  };
  return {
    expression,
    nextAfter(after) {
      const next = new Date(after.getTime());
      next.setSeconds(0, 0);
      next.setMinutes(next.getMinutes() + 1);
      // At most a year and a day of minutes: "0 0 31 2 *" never comes.
      for (let step = 0; step < 366 * 24 * 60 + 1; step++) {
        if (matches(next)) return next;
        next.setMinutes(next.getMinutes() + 1);
      }
      return undefined;
    },
  };
}

function parseField(text: string, field: { name: string; min: number; max: number }): Set<number> {
  const values = new Set<number>();
  for (const item of text.split(",")) {
    const match = /^(\*|\d+(?:-\d+)?)(?:\/(\d+))?$/.exec(item);
    if (match === null)
      throw new Error(`cron ${field.name} ${JSON.stringify(item)} is not *, a number, a range a-b or a step */n`);
    const [, range = "", stepText] = match;
    const step = stepText === undefined ? 1 : Number(stepText);
    if (step < 1) throw new Error(`cron ${field.name} step must be at least 1`);
    const [low, high] =
      range === "*"
        ? [field.min, field.max]
        : range.includes("-")
          ? (range.split("-").map(Number) as [number, number])
          : [Number(range), stepText === undefined ? Number(range) : field.max];
    if (low < field.min || high > field.max || low > high)
      throw new Error(`cron ${field.name} ${JSON.stringify(item)} is outside ${field.min}-${field.max}`);
    for (let value = low; value <= high; value += step) values.add(value);
  }
  return values;
}
