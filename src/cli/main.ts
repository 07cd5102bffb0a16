import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { RedlineError } from '../errors/redline-error.js';
import { demo } from './demo-command.js';
import { runFile } from './run-command.js';

/** Exit codes: 0 complete/complete_noop, 1 failed/blocked, 2 usage or mission-file error. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

function program(setCode: (code: number) => void): Command {
  const out = (line: string): void => void process.stdout.write(`${line}\n`);
  const err = (line: string): void => void process.stderr.write(`${line}\n`);
  const cli = new Command('redline')
    .description('Bounded refinement loops for AI agents that stop for the right reason.')
    .version('0.1.0')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });

  cli
    .command('run')
    .description('Run one mission file (JSON or YAML) and seal its outcome.')
    .argument('<mission>', 'mission file (.json, .yaml, .yml)')
    .option('--json', 'print one JSON line for the finished run')
    .option('--proposer <command>', 'proposer program speaking redline.proposer/1 (overrides the mission\'s proposer)')
    .option('--model <name>', 'model proposer through an OpenAI-compatible endpoint (needs --base-url)')
    .option('--base-url <url>', 'OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1')
    .option('--api-key-env <variable>', 'environment variable holding the API key', 'OPENAI_API_KEY')
    .option('--approve <name>', 'an approval the mission requires (repeatable)', collect)
    .option('--evidence-dir <dir>', 'where run records are written (default: .redline next to the mission)')
    .addHelpText('after', '\nExit codes: 0 complete or complete_noop, 1 blocked or failed_with_evidence, 2 usage or mission-file error.')
    .action(async (file: string, options) => {
      const { code } = await runFile(file, { ...options, ...(options.evidenceDir === undefined ? {} : { evidenceDir: path.resolve(options.evidenceDir) }) }, out, err);
      setCode(code);
    });

  cli
    .command('demo')
    .description('Run every bundled example mission and check each ended as documented.')
    .option('--json', 'print one JSON line per finished run')
    .option('--evidence-dir <dir>', 'where run records are written', '.redline')
    .addHelpText('after', '\nExit code 0 when every mission ended as documented in examples/README.md, else 1.')
    .action(async (options: { json?: boolean; evidenceDir: string }) => {
      setCode(await demo({ json: options.json === true, evidenceDir: path.resolve(options.evidenceDir) }, out, err));
    });
  return cli;
}

/** Runs the CLI on `argv` (without node and script) and returns the exit code; prints no stack for user errors. */
export async function main(argv: readonly string[]): Promise<number> {
  let code: number = EXIT.ok;
  try {
    await program((value) => (code = value)).parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (RedlineError.isInstance(error) || error instanceof TypeError) {
      process.stderr.write(`redline: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}
