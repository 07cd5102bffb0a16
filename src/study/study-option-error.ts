/** A study option with a bad value: names the option, what was expected and what it got. */
export class StudyOptionError extends TypeError {
  /** The option's name as the study function takes it, e.g. `tasksPerType`. */
  readonly option: string;
  readonly expected: string;
  readonly got: string;

  constructor({ option, expected, got }: { option: string; expected: string; got: string }) {
    super(`Expected \`${option}\` to be ${expected}, got ${got}`);
    this.name = 'StudyOptionError';
    this.option = option;
    this.expected = expected;
    this.got = got;
  }
}
