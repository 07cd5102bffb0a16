import type { StubReply } from '../../src/testing/openai-stub-server.js';

/** Correct and wrong code for the published tasks, keyed by the function each task asks for. */
export const CODE: Record<string, { readonly right: string; readonly wrong: string }> = {
  is_even: { right: 'def is_even(n):\n    return n % 2 == 0\n', wrong: 'def is_even(n):\n    return n % 2 == 1\n' },
  fizzbuzz: {
    right:
      "def fizzbuzz(n):\n    out = []\n    for i in range(1, n + 1):\n        if i % 15 == 0:\n            out.append('FizzBuzz')\n        elif i % 3 == 0:\n            out.append('Fizz')\n        elif i % 5 == 0:\n            out.append('Buzz')\n        else:\n            out.append(i)\n    return out\n",
    wrong: 'def fizzbuzz(n):\n    return [str(i) for i in range(1, n + 1)]\n',
  },
  group_by_first_letter: {
    right:
      'def group_by_first_letter(strings):\n    groups = {}\n    for s in strings:\n        groups.setdefault(s[0], []).append(s)\n    return groups\n',
    wrong: 'def group_by_first_letter(strings):\n    return {s[0]: [s] for s in strings}\n',
  },
};

/** How a scripted model behaves, as the published observations describe. */
export interface Behaviour {
  /** The code it writes at an attempt (1-based: the number of proposals it made for this run so far + 1). */
  readonly code: (task: string, attempt: number) => string;
  /** Its answer to the self-judge's question. */
  readonly answer: (task: string, code: string) => string;
}

/** Writes correct code at once, then says NO to it every time. */
export const correctButSaysNo: Behaviour = { code: (task) => CODE[task]!.right, answer: () => 'NO' };
/** Writes correct code, then "improves" it into wrong code; never satisfied. */
export const degrader: Behaviour = {
  code: (task, attempt) => (attempt === 1 ? CODE[task]!.right : CODE[task]!.wrong),
  answer: () => 'NO, it can be improved.',
};
/** Writes wrong code and says YES to it. */
export const yesToWrong: Behaviour = { code: (task) => CODE[task]!.wrong, answer: () => 'YES' };

const taskOf = (text: string): string => {
  const task = Object.keys(CODE).find((name) => text.includes(`${name}(`));
  if (task === undefined) throw new Error(`the scripted model cannot tell the task from: ${text.slice(0, 200)}`);
  return task;
};

/**
 * The stub's `respond` for a behaviour: a proposer request (it has the proposer's system prompt) gets a proposal,
 * the self-judge's question gets the answer. The attempt is read from the proposer prompt's budgets line.
 */
export function scriptedModel(behaviour: Behaviour): (body: unknown) => StubReply {
  return (body) => {
    const messages = (body as { messages: { role: string; content: string }[] }).messages;
    const user = messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
    const system = messages.find((message) => message.role === 'system')?.content ?? '';
    if (system.includes('proposer')) {
      const task = taskOf(user);
      const attempt = Number(/# Budgets left\nAttempt (\d+)/.exec(user)?.[1]);
      return JSON.stringify({ files: { 'solution.py': behaviour.code(task, attempt) } });
    }
    const code = /Here is your (?:current )?code:\n\n([\s\S]*)\n\n/.exec(user)?.[1] ?? '';
    return behaviour.answer(taskOf(user), code);
  };
}
