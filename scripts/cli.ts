// One convention for every command the README shows: `--help` (or `-h`) prints what the command does and
// how to call it, and exits 0 without doing anything else. test/scripts/readme-commands.test.ts runs it.

/** Prints `text` and exits when the command line asks for help. Call it before any work. */
export function helpRequested(text: string, argv: readonly string[] = process.argv.slice(2)): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(text.trim());
    process.exit(0);
  }
}
