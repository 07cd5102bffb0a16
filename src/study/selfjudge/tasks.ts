import { StudyOptionError } from '../study-option-error.js';

/**
 * One code task of the red line vs self-judge study, in the published script's format: the candidate
 * (`solution.py`) runs, then `testStmt`; its stdout must equal `expected` (surrounding whitespace aside).
 */
export interface CodeTask {
  readonly id: string;
  /** What the model is asked to write (or fix). */
  readonly desc: string;
  readonly testStmt: string;
  readonly expected: string;
  /** The `solution.py` the task starts from (the repair boundary's seeded bugs); none when absent. */
  readonly code?: string;
  /** The task's class in a task set that has classes (the repair boundary: `syntax`, `logic`). */
  readonly taskClass?: string;
}

/** The published experiment's three tasks (docs/experiments.md, 'Red line vs self-judge'). */
export const PUBLISHED_TASKS: readonly CodeTask[] = Object.freeze([
  {
    id: 'is_even',
    desc: 'Write a Python function is_even(n) that returns True when the integer n is even and False otherwise.',
    testStmt: 'print(is_even(4)); print(is_even(3))',
    expected: 'True\nFalse',
  },
  {
    id: 'fizzbuzz',
    desc: "Write a Python function fizzbuzz(n) that returns a list for 1..n: 'Fizz' for multiples of 3, 'Buzz' for multiples of 5, 'FizzBuzz' for multiples of both, else the number itself.",
    testStmt: 'print(fizzbuzz(5))',
    expected: "[1, 2, 'Fizz', 4, 'Buzz']",
  },
  {
    id: 'group_by_first_letter',
    desc: 'Write a Python function group_by_first_letter(strings) that returns a dict mapping each first letter to the list of strings starting with it, in their original order.',
    testStmt: "print(group_by_first_letter(['apple','banana','avocado','cherry','blueberry']))",
    expected: "{'a': ['apple', 'avocado'], 'b': ['banana', 'blueberry'], 'c': ['cherry']}",
  },
]);

const fix = (what: string): string => `The Python code in solution.py should ${what}, but it is broken. Fix it.`;

/**
 * The repair boundary (docs/experiments.md, 'The repair boundary'): code with a seeded syntax error, and code that runs but
 * is conceptually wrong. Every task fails its test as given; the tests in test/study hold a fix for each.
 */
export const BOUNDARY_TASKS: readonly CodeTask[] = Object.freeze([
  {
    id: 'syntax-missing-colon',
    taskClass: 'syntax',
    desc: fix('define square(n) returning n * n'),
    code: 'def square(n)\n    return n * n\n',
    testStmt: 'print(square(7))',
    expected: '49',
  },
  {
    id: 'syntax-unclosed-paren',
    taskClass: 'syntax',
    desc: fix('define total(xs) returning the sum of the list xs'),
    code: 'def total(xs):\n    return sum(xs\n',
    testStmt: 'print(total([1, 2, 3]))',
    expected: '6',
  },
  {
    id: 'syntax-bad-indent',
    taskClass: 'syntax',
    desc: fix('define clamp(x, lo, hi) returning x limited to the range lo..hi'),
    code: 'def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n      if x > hi:\n        return hi\n    return x\n',
    testStmt: 'print(clamp(5, 0, 3), clamp(-1, 0, 3), clamp(2, 0, 3))',
    expected: '3 0 2',
  },
  {
    id: 'syntax-unterminated-string',
    taskClass: 'syntax',
    desc: fix('define greet(name) returning "Hello, <name>!"'),
    code: 'def greet(name):\n    return "Hello, " + name + "!\n',
    testStmt: "print(greet('Ada'))",
    expected: 'Hello, Ada!',
  },
  {
    id: 'syntax-assign-in-condition',
    taskClass: 'syntax',
    desc: fix('define is_zero(n) returning True exactly when n is 0'),
    code: 'def is_zero(n):\n    if n = 0:\n        return True\n    return False\n',
    testStmt: 'print(is_zero(0), is_zero(2))',
    expected: 'True False',
  },
  {
    id: 'logic-off-by-one-range',
    taskClass: 'logic',
    desc: fix('define sum_to(n) returning 1 + 2 + … + n'),
    code: 'def sum_to(n):\n    return sum(range(1, n))\n',
    testStmt: 'print(sum_to(4), sum_to(1))',
    expected: '10 1',
  },
  {
    id: 'logic-fizzbuzz-order',
    taskClass: 'logic',
    desc: fix("define label(n) returning 'FizzBuzz' for multiples of 15, 'Fizz' for 3, 'Buzz' for 5, else str(n)"),
    code: "def label(n):\n    if n % 3 == 0:\n        return 'Fizz'\n    if n % 5 == 0:\n        return 'Buzz'\n    if n % 15 == 0:\n        return 'FizzBuzz'\n    return str(n)\n",
    testStmt: 'print([label(n) for n in (3, 5, 15, 7)])',
    expected: "['Fizz', 'Buzz', 'FizzBuzz', '7']",
  },
  {
    id: 'logic-mutable-default',
    taskClass: 'logic',
    desc: fix('define append_item(item, items=None) returning a new list holding the given items (none by default) followed by item'),
    code: 'def append_item(item, items=[]):\n    items.append(item)\n    return items\n',
    testStmt: 'print(append_item(1)); print(append_item(2))',
    expected: '[1]\n[2]',
  },
  {
    id: 'logic-integer-mean',
    taskClass: 'logic',
    desc: fix('define mean(xs) returning the arithmetic mean of the numbers xs as a float'),
    code: 'def mean(xs):\n    return sum(xs) // len(xs)\n',
    testStmt: 'print(mean([1, 2]))',
    expected: '1.5',
  },
  {
    id: 'logic-factorial-base-case',
    taskClass: 'logic',
    desc: fix('define factorial(n) for integers n >= 0 (factorial(0) is 1)'),
    code: 'def factorial(n):\n    if n == 1:\n        return 1\n    return n * factorial(n - 1)\n',
    testStmt: 'print(factorial(0), factorial(5))',
    expected: '1 120',
  },
  {
    id: 'logic-palindrome-case',
    taskClass: 'logic',
    desc: fix('define is_palindrome(s) ignoring case and spaces'),
    code: 'def is_palindrome(s):\n    return s == s[::-1]\n',
    testStmt: "print(is_palindrome('Never odd or even'), is_palindrome('abc'))",
    expected: 'True False',
  },
]);

/** The named task sets of `--task-set`. */
export const TASK_SETS = { published: PUBLISHED_TASKS, boundary: BOUNDARY_TASKS } as const;
export type TaskSetName = keyof typeof TASK_SETS;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads the published script's task file format, `{"tasks": [{"id", "desc", "test_stmt", "expected"}]}`
 * (optional `code`, the starting `solution.py`, and `class`).
 * @throws {StudyOptionError} for option `taskFile`, naming the first bad field.
 */
export function parseTaskFile(data: unknown): CodeTask[] {
  const bad = (expected: string, got: string): StudyOptionError => new StudyOptionError({ option: 'taskFile', expected, got });
  if (!isObject(data) || !Array.isArray(data.tasks) || data.tasks.length === 0)
    throw bad('a JSON object {"tasks": [{"id", "desc", "test_stmt", "expected"}, …]} with at least one task', 'no tasks array');
  const seen = new Set<string>();
  return data.tasks.map((raw: unknown, index) => {
    if (!isObject(raw)) throw bad(`a task file whose tasks[${index}] is an object`, typeof raw);
    for (const key of ['id', 'desc', 'test_stmt', 'expected'] as const) {
      if (typeof raw[key] !== 'string' || (key !== 'expected' && raw[key] === ''))
        throw bad(
          `a task file whose tasks[${index}].${key} is a non-empty string`,
          raw[key] === undefined ? 'nothing' : JSON.stringify(raw[key]),
        );
    }
    for (const key of ['code', 'class'] as const) {
      if (raw[key] !== undefined && typeof raw[key] !== 'string')
        throw bad(`a task file whose tasks[${index}].${key} is a string`, JSON.stringify(raw[key]));
    }
    const id = raw.id as string;
    if (!/^[A-Za-z0-9._-]+$/.test(id))
      throw bad(`a task file whose tasks[${index}].id holds letters, digits, ".", "_" and "-" only`, JSON.stringify(id));
    if (seen.has(id)) throw bad('a task file with unique task ids', `"${id}" twice`);
    seen.add(id);
    return {
      id,
      desc: raw.desc as string,
      testStmt: raw.test_stmt as string,
      expected: raw.expected as string,
      ...(typeof raw.code === 'string' ? { code: raw.code } : {}),
      ...(typeof raw.class === 'string' ? { taskClass: raw.class } : {}),
    };
  });
}
