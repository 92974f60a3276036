#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run scripts/verdict.py over the recorded guest logs in tests/verdict/<case>/.

Each case directory holds console.log, markers.log (the ttyS1 file; may be
empty), optional `args` (extra verdict.py arguments, shell-quoted) and
`expect`: first line PASS or FAIL, each further line a string the VERDICT line
must contain (or, after `row `, a string the RESULT row must contain).

Then the same cases once more as one results directory, each with the
scenario.env run-qemu.sh would have written, judged offline by
scripts/recheck.sh: it must give the very VERDICT lines of the first pass.
Prints one ok/FAIL line per case; exits 1 if any case fails.
"""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
VERDICT = os.path.join(HERE, '..', '..', 'scripts', 'verdict.py')
RECHECK = os.path.join(HERE, '..', '..', 'scripts', 'recheck.sh')
# verdict.py options and the scenario.env keys that carry them.
ENV_OF_OPTION = {'--expect-stall': 'EXPECT_STALL', '--trcu-args': 'TRCU_ARGS',
                 '--killed': 'KILLED', '--script': 'SCRIPT', '--wall': 'WALL',
                 '--seed': 'SEED'}


def case_args(d):
    if not os.path.exists(os.path.join(d, 'args')):
        return []
    with open(os.path.join(d, 'args')) as f:
        return shlex.split(f.read())


def run_case(name):
    d = os.path.join(HERE, name)
    with open(os.path.join(d, 'expect')) as f:
        want = [l.rstrip('\n') for l in f if l.strip()]
    args = case_args(d)
    cmd = [sys.executable, VERDICT, '--scenario', name, '--console',
           os.path.join(d, 'console.log'), '--markers', os.path.join(d, 'markers.log')] + args
    p = subprocess.run(cmd, capture_output=True, text=True)
    line = next((l for l in p.stdout.splitlines() if l.startswith('VERDICT')), '')
    row = next((l for l in p.stdout.splitlines() if l.startswith('RESULT')), '')
    problems = []
    got = 'PASS' if ': PASS' in line else 'FAIL'
    if got != want[0]:
        problems.append('expected %s' % want[0])
    if (p.returncode == 0) != (want[0] == 'PASS'):
        problems.append('exit status %d' % p.returncode)
    for s in want[1:]:
        if s.startswith('row '):
            if s[4:] not in row:
                problems.append('row misses "%s"' % s[4:])
        elif s not in line:
            problems.append('missing "%s"' % s)
    return problems, line or p.stderr.strip()


def write_env(d, name, args):
    """The scenario.env of a case, as run-qemu.sh would write it."""
    env = {'SCENARIO': name}
    i = 0
    while i < len(args):
        if args[i] == '--expect-fail':
            env['EXPECT_FAIL'] = '1'
        elif args[i] in ENV_OF_OPTION and i + 1 < len(args):
            env[ENV_OF_OPTION[args[i]]] = args[i + 1]
            i += 1
        i += 1
    with open(os.path.join(d, 'scenario.env'), 'w') as f:
        for k, v in env.items():
            f.write('%s=%s\n' % (k, shlex.quote(v)))


def recheck(cases, lines):
    """Judge every case again through scenario.env and recheck.sh."""
    top = tempfile.mkdtemp(prefix='verdict-recheck.')
    try:
        for c in cases:
            d = os.path.join(top, c)
            os.mkdir(d)
            for f in ('console.log', 'markers.log'):
                shutil.copy(os.path.join(HERE, c, f), d)
            write_env(d, c, case_args(os.path.join(HERE, c)))
        # The order of the run, as run-qemu.sh records it.
        with open(os.path.join(top, 'jobs'), 'w') as f:
            f.write(''.join(c + '\n' for c in cases))
        p = subprocess.run(['bash', RECHECK, top], capture_output=True, text=True)
    finally:
        shutil.rmtree(top)
    got = [l for l in p.stdout.splitlines() if l.startswith('VERDICT')]
    bad = 0
    for want, have in zip(lines, got + [''] * len(lines)):
        if want != have:
            bad += 1
            print('FAIL recheck: %s\n     recheck gave: %s' % (want, have or '(nothing)'))
    want_rc = 1 if any(': FAIL' in l for l in lines) else 0
    tail = p.stdout.strip().splitlines()[-1:] or ['']
    if p.returncode != want_rc or not tail[0].endswith(' failed'):
        bad += 1
        print('FAIL recheck: exit status %d, last line "%s"' % (p.returncode, tail[0]))
    print('recheck: %d of %d verdicts the same' % (len(lines) - bad, len(lines)))
    return bad


def main():
    cases = sorted(e for e in os.listdir(HERE) if os.path.isdir(os.path.join(HERE, e)))
    bad = 0
    lines = []
    for c in cases:
        problems, line = run_case(c)
        lines.append(line)
        if problems:
            bad += 1
            print('FAIL %s: %s\n     %s' % (c, ', '.join(problems), line))
        else:
            print('ok   %s: %s' % (c, line))
    bad += recheck(cases, lines)
    print('verdict tests: %d passed, %d failed' % (len(cases) - bad, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
