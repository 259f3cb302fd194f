/** Every admin command prints exactly one JSON object: the result on stdout... */
export function printResult(result: object): void {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** ...or `{"error": ...}` on stderr, with a non-zero exit code. */
export function printError(message: string, details?: string[]): void {
  process.stderr.write(
    `${JSON.stringify(details?.length ? { error: message, details } : { error: message })}\n`,
  );
  process.exitCode = 1;
}

/** A command line the CLI cannot run: `{"error","usage"}` on stderr, exit code 2. */
export function printUsageError(message: string, usage: string): void {
  process.stderr.write(`${JSON.stringify({ error: message, usage })}\n`);
  process.exitCode = 2;
}
