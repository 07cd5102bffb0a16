/** A fix of every repair-boundary task: the tests check that each seeded task fails and its fix passes. */
export const FIXES: Readonly<Record<string, string>> = {
  'syntax-missing-colon': 'def square(n):\n    return n * n\n',
  'syntax-unclosed-paren': 'def total(xs):\n    return sum(xs)\n',
  'syntax-bad-indent': 'def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n',
  'syntax-unterminated-string': 'def greet(name):\n    return "Hello, " + name + "!"\n',
  'syntax-assign-in-condition': 'def is_zero(n):\n    if n == 0:\n        return True\n    return False\n',
  'logic-off-by-one-range': 'def sum_to(n):\n    return sum(range(1, n + 1))\n',
  'logic-fizzbuzz-order':
    "def label(n):\n    if n % 15 == 0:\n        return 'FizzBuzz'\n    if n % 3 == 0:\n        return 'Fizz'\n    if n % 5 == 0:\n        return 'Buzz'\n    return str(n)\n",
  'logic-mutable-default': 'def append_item(item, items=None):\n    return [*(items or []), item]\n',
  'logic-integer-mean': 'def mean(xs):\n    return sum(xs) / len(xs)\n',
  'logic-factorial-base-case': 'def factorial(n):\n    if n <= 1:\n        return 1\n    return n * factorial(n - 1)\n',
  'logic-palindrome-case': "def is_palindrome(s):\n    t = s.replace(' ', '').lower()\n    return t == t[::-1]\n",
};
