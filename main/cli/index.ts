/**
 * `npm run cli -- <command> …`: the engine without a UI. Each command lives in its own file under
 * ./commands and exports a `run(argv)` that resolves to the process exit code.
 */
type Command = { summary: string; load: () => Promise<{ run(argv: string[]): Promise<number> }> };

const COMMANDS: Record<string, Command> = {
  parse: { summary: 'parse a subscription file or URL and print its servers and rejected entries as JSON', load: () => import('./commands/parse') },
  connect: { summary: 'connect through a subscription server; print the local proxy addresses; Ctrl-C disconnects', load: () => import('./commands/connect') },
  'kill-switch': { summary: 'off: remove the kill switch a connect --kill-switch left in force (direct traffic again); status: is it in force', load: () => import('./commands/kill-switch') },
  speedtest: { summary: 'download N MB through each server of a subscription, K at a time; one JSON line per server, then a table', load: () => import('./commands/speedtest') },
  cores: { summary: 'the cores found, their roles and abilities, and which servers each carries, as JSON', load: () => import('./commands/cores') },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return ['usage: npm run cli -- <command> [options]', '', 'commands:', ...lines].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  // With Auto the whole engine runs (monitor, Auto, reachability): its own command file.
  const module = name === 'connect' && rest.includes('--auto') ? await import('./commands/connect-auto') : await command.load();
  return module.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  },
);
