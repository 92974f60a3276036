#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run scripts/verdict.py over the recorded guest logs in tests/verdict/<case>/.

Each case directory holds console.log, markers.log (the ttyS1 file; may be
empty), optional `args` (extra verdict.py arguments, shell-quoted) and
`expect`: first line PASS or FAIL, each further line a string the VERDICT line
must contain.  Prints one ok/FAIL line per case; exits 1 if any case fails.
"""
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VERDICT = os.path.join(HERE, '..', '..', 'scripts', 'verdict.py')


def run_case(name):
    d = os.path.join(HERE, name)
    with open(os.path.join(d, 'expect')) as f:
        want = [l.rstrip('\n') for l in f if l.strip()]
    args = []
    if os.path.exists(os.path.join(d, 'args')):
        with open(os.path.join(d, 'args')) as f:
            args = shlex.split(f.read())
    cmd = [sys.executable, VERDICT, '--scenario', name, '--console',
           os.path.join(d, 'console.log'), '--markers', os.path.join(d, 'markers.log')] + args
    p = subprocess.run(cmd, capture_output=True, text=True)
    line = next((l for l in p.stdout.splitlines() if l.startswith('VERDICT')), '')
    problems = []
    got = 'PASS' if ': PASS' in line else 'FAIL'
    if got != want[0]:
        problems.append('expected %s' % want[0])
    if (p.returncode == 0) != (want[0] == 'PASS'):
        problems.append('exit status %d' % p.returncode)
    for s in want[1:]:
        if s not in line:
            problems.append('missing "%s"' % s)
    return problems, line or p.stderr.strip()


def main():
    cases = sorted(e for e in os.listdir(HERE) if os.path.isdir(os.path.join(HERE, e)))
    bad = 0
    for c in cases:
        problems, line = run_case(c)
        if problems:
            bad += 1
            print('FAIL %s: %s\n     %s' % (c, ', '.join(problems), line))
        else:
            print('ok   %s: %s' % (c, line))
    print('verdict tests: %d passed, %d failed' % (len(cases) - bad, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
