import { describe, expect, it } from 'vitest';
import { isListedProcess, needsCommandLines, programTargets, shebangInterpreter } from './program-match';

const resolved = new Map([
  ['/usr/bin/firefox', { real: '/usr/lib/firefox-esr/firefox-esr' }],
  ['/usr/bin/not-installed', { real: null }],
  ['/usr/local/bin/tool.sh', { real: '/usr/local/bin/tool.sh', interpreter: '/usr/bin/bash' }],
]);
const targets = programTargets(['/usr/bin/firefox', 'discord', 'uid:1001', '/usr/bin/not-installed', '/usr/local/bin/tool.sh'], resolved);

describe('programTargets', () => {
  it('takes paths as written and as they resolve, names as they are, and leaves uids to nftables', () => {
    expect(targets).toEqual({
      paths: ['/usr/bin/firefox', '/usr/lib/firefox-esr/firefox-esr', '/usr/bin/not-installed', '/usr/local/bin/tool.sh'],
      names: ['discord'],
      scripts: new Map([['/usr/local/bin/tool.sh', '/usr/bin/bash']]),
    });
  });
});

describe('isListedProcess', () => {
  it.each([
    ['the executable the path resolves to', '/usr/lib/firefox-esr/firefox-esr', ['/usr/lib/firefox-esr/firefox-esr'], true],
    ['the path itself', '/usr/bin/firefox', [], true],
    ['replaced by an upgrade since it started', '/usr/lib/firefox-esr/firefox-esr (deleted)', [], true],
    ['a program name wherever it lies', '/opt/Discord/discord', ['/opt/Discord/discord', '--type=renderer'], true],
    ['a name is the file name, not a part of it', '/opt/Discord/discord-helper', [], false],
    ['a script of that path, run by its interpreter', '/usr/bin/bash', ['/bin/bash', '/usr/local/bin/tool.sh', '--now'], true],
    ['a script whose shebang gives an option', '/usr/bin/bash', ['/bin/bash', '-e', '/usr/local/bin/tool.sh'], true],
    ['a program handed the script to read is not it', '/usr/bin/vim.basic', ['vim', '/usr/local/bin/tool.sh'], false],
    ['nor one that names it further on', '/usr/bin/bash', ['bash', '-x', '-e', '/usr/local/bin/tool.sh'], false],
    ['another program', '/usr/bin/curl', ['curl', 'http://example/'], false],
  ])('%s', (_, exe, argv, listed) => {
    expect(isListedProcess(targets, exe, argv)).toBe(listed);
  });

  it('a script whose interpreter is not known is known by its path alone', () => {
    const unknown = programTargets(['/opt/run'], new Map([['/opt/run', { real: '/opt/run', interpreter: null }]]));
    expect(isListedProcess(unknown, '/usr/bin/python3.11', ['python3', '/opt/run'])).toBe(true);
  });

  it('reads command lines only when a listed path is a script', () => {
    expect(needsCommandLines(targets)).toBe(true);
    expect(needsCommandLines(programTargets(['/usr/bin/firefox', 'discord'], resolved))).toBe(false);
  });
});

describe('shebangInterpreter', () => {
  it.each([
    ['#!/bin/sh -e', { program: '/bin/sh', onPath: false }],
    ['#! /usr/bin/python3\nimport sys', { program: '/usr/bin/python3', onPath: false }],
    ['#!/usr/bin/env python3', { program: 'python3', onPath: true }],
    ['#!/usr/bin/env -S LC_ALL=C node --no-warnings', { program: 'node', onPath: true }],
    ['#!/usr/bin/env', null],
    ['\x7fELF', null],
  ])('%j', (line, interpreter) => {
    expect(shebangInterpreter(line)).toEqual(interpreter);
  });
});
