#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge one trcu guest run from its console log and its marker file.

    verdict.py --scenario NAME --console console.log --markers markers.log \
               [--expect-stall 0|1] [--trcu-args "..."] [--killed REASON] [--wall S]
               [--seed N]

prints
    VERDICT NAME: PASS (gps N, S s)        or   VERDICT NAME: FAIL: reason; reason...
    RESULT<TAB>NAME<TAB>PASS|FAIL<TAB>gps<TAB>seconds<TAB>gp/s<TAB>wall<TAB>reasons
and exits 0 on PASS, 1 on FAIL.  The pass rules are those of
Documentation/testing.rst ("Reading a verdict"); the console lines are the
contract between the torture modules and this script.

    verdict.py --row < verdict.txt      the RESULT fields, tab-separated (a summary row)
    verdict.py --summary summary.rows   the summary table
"""
import argparse
import os
import re
import shlex
import sys

TS_RE = re.compile(r'^\[\s*(\d+\.\d+)\]')
MARK_RE = re.compile(r'TRCU-MARK: (.*)$')
STATS_RE = re.compile(r'([a-z_]+)-torture: rtc: .*\bver: (\d+)')
GPS_RE = re.compile(r'\bgps: (\d+)')
ONOFF_RE = re.compile(r'\bonoff: (\d+)/(\d+):(\d+)/(\d+)')
END_RE = re.compile(r'-torture:--- End of test: (SUCCESS|FAILURE)')
STALL_INJECT_RE = re.compile(r'-torture: stall_cpu: stalling CPU (\d+) for (\d+) s')
TRCU_STALL_RE = re.compile(r'trcu: INFO: (trcu|trcu_bh) (self-)?detected stall on CPU (\d+)')
# The kernel's own RCU stall warnings, hung tasks.
TRCU_ANY_STALL_RE = re.compile(r'trcu: INFO: .*stall')
# trcu's unload line: kprobe nmissed counts, `trcu: probe misses: a=1 b=0`.
MISSES_RE = re.compile(r'trcu: probe misses:(.*)$')
MISS_RE = re.compile(r'(\w+)=(\d+)')
KERNEL_STALL_RE = re.compile(r'rcu: INFO: .*stall|self-detected stall|detected stalls on CPU|'
                             r'blocked for more than \d+ seconds')
BAD_PATTERNS = [
    ('!!!', re.compile(r'!!!')),
    ('BUG:', re.compile(r'BUG:')),
    ('WARNING:', re.compile(r'WARNING:')),
    ('Oops', re.compile(r'Oops')),
    ('Call Trace', re.compile(r'Call Trace')),
    ('kernel panic', re.compile(r'Kernel panic')),
    # Debug kernel: lockdep ("WARNING: possible circular locking...", "WARNING:
    # suspicious RCU usage"), might_sleep ("BUG: sleeping function called from
    # invalid context"), KASAN ("BUG: KASAN:") and debugobjects (a WARN) are
    # caught above; kmemleak's scan only prints this line.
    ('kmemleak', re.compile(r'kmemleak: \d+ new suspected memory leak')),
]
MAX_LINE = 120


def short(line):
    line = TS_RE.sub('', line).strip()
    return line if len(line) <= MAX_LINE else line[:MAX_LINE - 3] + '...'


def ts_of(line):
    m = TS_RE.match(line)
    return float(m.group(1)) if m else None


def trcu_param(args, name, default):
    val = default
    for word in (args or '').split():
        if word.startswith(name + '='):
            try:
                val = int(word.split('=', 1)[1], 0)
            except ValueError:
                pass
    return val


def expected_bad(lines):
    """Indexes of console lines between EXPECT-BAD begin/end markers (a script
    provoking a warning on purpose).  An unterminated region runs to the end."""
    out = set()
    inside = False
    for i, l in enumerate(lines):
        if 'TRCU-MARK: EXPECT-BAD begin' in l:
            inside = True
        elif 'TRCU-MARK: EXPECT-BAD end' in l:
            inside = False
        elif inside:
            out.add(i)
    return out


def judge_script(marks, script, reasons, fields):
    """Script scenario: every TEST marker passed, at least one, script rc 0."""
    tests = [m for m in marks if m.startswith('TEST ')]
    failed = [m for m in tests if re.match(r'TEST \S+ FAIL', m)]
    passed = [m for m in tests if re.match(r'TEST \S+ PASS', m)]
    fields['gps'] = len(passed)
    for m in failed[:3]:
        reasons.append('check failed: %s' % m[len('TEST '):][:MAX_LINE])
    if len(failed) > 3:
        reasons.append('(+%d more failed checks)' % (len(failed) - 3))
    rcs = [m for m in marks if m.startswith('SCRIPT ')]
    if not rcs:
        reasons.append('script %s did not finish' % script)
    else:
        mm = re.search(r'rc=(\d+)', rcs[-1])
        if not mm or mm.group(1) != '0':
            reasons.append('script %s exited with %s' % (script, mm.group(1) if mm else '?'))
        if not tests:
            reasons.append('script %s reported no checks' % script)


def mark_lines(marks, prefix):
    return [m for m in marks if m.startswith(prefix)]


def judge_boot(lines, killed, reasons):
    """The guest never reached /init: say why, as far as the console tells."""
    r = 'guest never reached /init'
    if killed:
        r += ' (%s)' % killed
    reasons.append(r)
    panic = [l for l in lines if 'Kernel panic' in l]
    if panic:
        reasons.append('kernel panic: %s' % short(panic[0]))
        return
    bad = [l for l in lines if re.search(r'BUG:|Oops|WARNING:', l)]
    if bad:
        reasons.append('kernel: %s' % short(bad[0]))


def judge_insmods(lines, marks, reasons):
    """Failed insmods, each with the module's last console line.  True if any."""
    failed = False
    for m in mark_lines(marks, 'INSMOD'):
        mm = re.match(r'INSMOD (\S+) rc=(\d+)', m)
        if not mm or mm.group(2) == '0':
            continue
        failed = True
        why = ''
        tag = re.escape(mm.group(1).replace('trcutorture', 'trcu'))
        for l in lines:
            if re.search(r'\b%s: ' % tag, l) and 'TRCU-MARK' not in l:
                why = short(l)
        reasons.append('insmod %s failed (rc %s)%s' % (mm.group(1), mm.group(2),
                                                      ': last line "%s"' % why if why else ''))
    return failed


def judge_steps(lines, marks, killed, reasons):
    """The /init steps after the insmods: end marker, rmmods, guest commands."""
    if not mark_lines(marks, 'END '):
        if any('Kernel panic' in l for l in lines):
            r = 'guest died: no end marker after a kernel panic'
        else:
            r = 'hang: no end marker'
        r += ' (last step: %s)' % marks[-1]
        if killed:
            r += ' (%s)' % killed
        reasons.append(r)
    for m in mark_lines(marks, 'END-OF-TEST timeout'):
        reasons.append('torture end line not seen in the guest (%s)' % m[len('END-OF-TEST '):])
    for m in mark_lines(marks, 'RMMOD'):
        mm = re.match(r'RMMOD (\S+) rc=(\d+)', m)
        if mm and mm.group(2) != '0':
            reasons.append('rmmod %s failed (rc %s)' % (mm.group(1), mm.group(2)))
    for m in mark_lines(marks, 'GUEST_'):
        mm = re.match(r'(GUEST_\w+) rc=(\d+)', m)
        if mm and mm.group(2) != '0':
            reasons.append('%s failed (rc %s)' % (mm.group(1), mm.group(2)))


def judge_counts(stats, reasons, fields):
    """Grace periods (or the reader version) must rise over the stats lines."""
    counts = []
    for l in stats:
        g = GPS_RE.search(l)
        counts.append(int(g.group(1)) if g else int(STATS_RE.search(l).group(2)))
    what = 'gps' if stats and GPS_RE.search(stats[-1]) else 'ver'
    if counts:
        fields['gps'] = counts[-1]
    if len(counts) < 2:
        reasons.append('grace periods: only %d torture stats line(s)' % len(counts))
    elif counts[-1] <= counts[0]:
        reasons.append('grace-period count not rising (%s %d -> %d over %d stats lines)'
                       % (what, counts[0], counts[-1], len(counts)))


def judge_hotplug(stats, reasons, fields):
    """Every hotplug operation the torture tried must have succeeded."""
    o = ONOFF_RE.search(stats[-1]) if stats else None
    if not o:
        return
    a, b, c, d = map(int, o.groups())
    if a != b or c != d:
        reasons.append('hotplug: %d/%d onlines and %d/%d offlines succeeded' % (a, b, c, d))
    elif b or d:
        # A hotplug scenario that never hotplugged proves little: say how
        # many operations the torture did (onoff: a/b:c/d = onlines
        # ok/tried : offlines ok/tried).
        fields['notes'].append('hotplug %d ops (onoff: %d/%d:%d/%d)' % (a + c, a, b, c, d))


def judge_torture(lines, reasons, fields):
    """Torture scenario: its end line, its statistics, its duration."""
    end = [l for l in lines if END_RE.search(l)]
    if not end:
        reasons.append('no torture end line')
    elif END_RE.search(end[-1]).group(1) != 'SUCCESS':
        reasons.append('torture reported FAILURE')
    stats = [l for l in lines if STATS_RE.search(l)]
    judge_counts(stats, reasons, fields)
    judge_hotplug(stats, reasons, fields)
    # Seconds of torture: from its insmod (marker echoed to the kernel log) to its end line.
    t0 = None
    for l in lines:
        if 'TRCU-MARK: INSMOD trcutorture' in l or re.search(r'-torture:', l):
            t0 = ts_of(l)
            if t0 is not None:
                break
    t1 = ts_of(end[-1]) if end else None
    if t0 is not None and t1 is not None and t1 >= t0:
        fields['seconds'] = t1 - t0


def judge_stall_report(l, cpu, secs, t_inj, limit, reasons, good, i):
    """One trcu stall report of an expected-stall run: on time, right CPU?"""
    c = int(TRCU_STALL_RE.search(l).group(3))
    t = ts_of(l)
    dt = (t - t_inj) if (t is not None and t_inj is not None) else None
    if c != cpu:
        reasons.append('stall report names CPU %d, but the torture stalled CPU %d: %s'
                       % (c, cpu, short(l)))
    elif dt is not None and dt < 0:
        reasons.append('stall report before the stall began: %s' % short(l))
    elif dt is not None and dt > secs + limit:
        reasons.append('unexpected stall (%.1f s after the stall began): %s' % (dt, short(l)))
    else:
        good.append((i, dt))


def judge_expected_stall(lines, trcu_stalls, stall_timeout, reasons):
    """The torture stalled a CPU on purpose: trcu must report it, in time."""
    inject = [l for l in lines if STALL_INJECT_RE.search(l)]
    if not inject:
        reasons.append('expected stall: the torture never printed "stall_cpu: stalling CPU"')
        return
    il = inject[0]
    cpu = int(STALL_INJECT_RE.search(il).group(1))
    secs = int(STALL_INJECT_RE.search(il).group(2))
    limit = stall_timeout + 5
    good = []
    for i, l in trcu_stalls:
        judge_stall_report(l, cpu, secs, ts_of(il), limit, reasons, good, i)
    if not trcu_stalls:
        reasons.append('expected stall missing: no trcu stall report for CPU %d' % cpu)
    elif good and all(dt is not None and dt > limit for _, dt in good):
        reasons.append('stall report too late: %.1f s after the stall on CPU %d began '
                       '(limit stall_timeout + 5 = %d s)' % (good[0][1], cpu, limit))
    elif not good and not any('names CPU' in r for r in reasons):
        reasons.append('expected stall missing: no valid trcu stall report for CPU %d' % cpu)


def excuse_stall_traces(lines, trcu_stalls, excused):
    """A stall report may carry a backtrace: excuse "Call Trace" lines within
    2 s after a trcu stall line, unless a BUG/WARNING/Oops came in between."""
    for i, l in trcu_stalls:
        t = ts_of(l)
        for j in range(i + 1, min(len(lines), i + 200)):
            lj = lines[j]
            if re.search(r'BUG:|WARNING:|Oops|Kernel panic', lj):
                break
            tj = ts_of(lj)
            if t is not None and tj is not None and tj - t > 2.0:
                break
            if 'Call Trace' in lj:
                excused.add(j)


def judge_stalls(lines, expect_stall, trcu_args, excused, reasons):
    """trcu's and the kernel's stall reports; adds excused backtrace lines."""
    stall_timeout = trcu_param(trcu_args, 'stall_timeout', 21)
    trcu_stalls = [(i, l) for i, l in enumerate(lines) if TRCU_STALL_RE.search(l)]
    if expect_stall:
        judge_expected_stall(lines, trcu_stalls, stall_timeout, reasons)
        excuse_stall_traces(lines, trcu_stalls, excused)
    else:
        # A script's provoked stall (inside EXPECT-BAD) is not unexpected.
        for _, l in [(i, l) for i, l in trcu_stalls if i not in excused][:1]:
            reasons.append('unexpected stall: %s' % short(l))
    # Other trcu stall reports (e.g. about the hierarchy, not a CPU) are never expected.
    for i, l in enumerate(lines):
        if i not in excused and TRCU_ANY_STALL_RE.search(l) and not TRCU_STALL_RE.search(l):
            reasons.append('unexpected stall: %s' % short(l))
            break
    for i, l in enumerate(lines):
        if i not in excused and KERNEL_STALL_RE.search(l) and 'trcu: INFO' not in l:
            reasons.append('kernel stall warning: %s' % short(l))
            break


def judge_bad_lines(lines, excused, reasons):
    """Forbidden console lines (BUG:, WARNING:, ...) outside excused regions."""
    for label, rx in BAD_PATTERNS:
        hits = [l for i, l in enumerate(lines) if rx.search(l) and i not in excused
                and 'TRCU-MARK' not in l]
        if hits:
            more = ' (+%d more)' % (len(hits) - 1) if len(hits) > 1 else ''
            reasons.append('%s line: %s%s' % (label, short(hits[0]), more))


def probe_misses(lines, fields):
    """trcu's unload line `trcu: probe misses: name=n ...` (kprobe nmissed).
    A missed probe is information, never a failure: a count in the row,
    and the non-zero ones in the notes."""
    found = [MISSES_RE.search(l) for l in lines]
    found = [m for m in found if m]
    if not found:
        return
    counts = [(k, int(v)) for k, v in MISS_RE.findall(found[-1].group(1))]
    fields['misses'] = sum(v for _, v in counts)
    nonzero = ['%s=%d' % (k, v) for k, v in counts if v]
    if nonzero:
        fields['notes'].append('probe misses: %s' % ' '.join(nonzero))


def judge(console, markers, expect_stall=False, trcu_args='', killed=None, script=None):
    """Return (reasons, fields).  An empty reason list means PASS."""
    reasons = []
    fields = {'gps': None, 'seconds': None, 'misses': None, 'notes': []}
    lines = [l.rstrip('\r\n') for l in console.splitlines()]
    # Markers come from the second serial port; console copies are only a fallback
    # for the timestamps.
    marks = [m.group(1).strip() for m in map(MARK_RE.search, markers.splitlines()) if m]
    if not mark_lines(marks, 'START'):
        judge_boot(lines, killed, reasons)
        return reasons, fields
    insmod_failed = judge_insmods(lines, marks, reasons)
    judge_steps(lines, marks, killed, reasons)
    if script:
        judge_script(marks, script, reasons, fields)
    elif not insmod_failed:
        judge_torture(lines, reasons, fields)
    # line indexes allowed: an expected stall report, or a script's provoked warning
    excused = expected_bad(lines)
    judge_stalls(lines, expect_stall, trcu_args, excused, reasons)
    judge_bad_lines(lines, excused, reasons)
    probe_misses(lines, fields)
    return reasons, fields


def fmt_num(v, spec):
    return '-' if v is None else format(v, spec)


# The one result-row format of the harness (run-qemu.sh's summary.rows,
# check.sh, soak.sh, bench.sh): tab-separated, `-` for an unknown value,
# the free-text detail last (a FAIL's reasons, a PASS's notes).
ROW_FIELDS = ('name', 'verdict', 'gps', 'seconds', 'gp/s', 'wall', 'misses', 'detail')


def make_row(name, verdict, detail='', gps=None, secs=None, wall=None, misses=None):
    rate = gps / secs if gps is not None and secs else None
    detail = ' '.join(str(detail or '').split()) or '-'
    return '\t'.join([name, verdict, fmt_num(gps, 'd'), fmt_num(secs, '.1f'),
                      fmt_num(rate, '.1f'), '-' if wall in (None, '') else str(wall),
                      fmt_num(misses, 'd'), detail])


def expect_fail_verdict(reasons, fields):
    """--expect-fail (a mutant run): the scenario passes when the run fails,
    unless the failure says nothing about trcu (no boot, harness error)."""
    if not reasons:
        return ['not caught: scenario passed'], []
    if any('never reached /init' in r or r.startswith('harness') for r in reasons):
        return ['inconclusive: ' + '; '.join(reasons)], []
    return [], ['caught: ' + '; '.join(reasons)]


def verdict_of(env, console, markers):
    """(verdict line, row) of one run described by @env (scenario.env's keys)."""
    name = env.get('LABEL') or env.get('SCENARIO') or '?'
    if env.get('HARNESS_ERROR'):
        reasons, fields = ['harness: ' + env['HARNESS_ERROR']], {'gps': None, 'seconds': None,
                                                                   'misses': None, 'notes': []}
    else:
        reasons, fields = judge(console, markers, env.get('EXPECT_STALL') == '1',
                                env.get('TRCU_ARGS', ''), env.get('KILLED') or None,
                                env.get('SCRIPT') or None)
    notes = fields['notes']
    if env.get('EXPECT_FAIL') == '1':
        reasons, notes = expect_fail_verdict(reasons, fields)
    gps, secs = fields['gps'], fields['seconds']
    if reasons:
        line = 'VERDICT %s: FAIL: %s' % (name, '; '.join(reasons))
        if env.get('SEED') and env.get('EXPECT_FAIL') != '1':
            line += ' [seed %s; the same random choices again: ./run-qemu.sh --scenario %s ' \
                    '--torture-args seed=%s%s]' % (env['SEED'], env.get('SCENARIO', name), env['SEED'],
                                                  '' if env.get('KERNEL', 'stock') == 'stock'
                                                  else ' --kernel ' + env['KERNEL'])
    else:
        line = 'VERDICT %s: PASS (gps %s, %s s%s)' % (name, fmt_num(gps, 'd'), fmt_num(secs, '.0f'),
                                                   ''.join(', ' + n for n in notes))
    row = make_row(name, 'FAIL' if reasons else 'PASS', '; '.join(reasons or notes), gps, secs,
                   env.get('WALL'), fields['misses'])
    return line, row


def read_text(path):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return ''


def read_env(path):
    """scenario.env: KEY='value' lines in shell syntax (run-qemu.sh's shq)."""
    env = {}
    for line in read_text(path).splitlines():
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        if len(words) == 1 and '=' in words[0]:
            k, v = words[0].split('=', 1)
            env[k] = v
    return env


def print_verdict(line, row):
    print(line)
    print('RESULT\t' + row)
    return 1 if row.split('\t')[1] == 'FAIL' else 0


def main_dir(d):
    """Judge a result directory: scenario.env, console.log, markers.log."""
    env = read_env(os.path.join(d, 'scenario.env'))
    if not env:
        print('verdict: no scenario.env in %s' % d, file=sys.stderr)
        return 2
    return print_verdict(*verdict_of(env, read_text(os.path.join(d, 'console.log')),
                                     read_text(os.path.join(d, 'markers.log'))))


def main_judge(a):
    env = {'SCENARIO': a.scenario, 'EXPECT_STALL': str(a.expect_stall),
           'TRCU_ARGS': a.trcu_args, 'KILLED': a.killed or '', 'SCRIPT': a.script or '',
           'WALL': '' if a.wall is None else str(a.wall),
           'EXPECT_FAIL': '1' if a.expect_fail else '0', 'SEED': a.seed}
    return print_verdict(*verdict_of(env, read_text(a.console), read_text(a.markers)))


def main_row():
    for line in sys.stdin:
        if line.startswith('RESULT\t'):
            print(line.rstrip('\n').split('\t', 1)[1])
            return 0
    return 1


def main_summary(path):
    rows = []
    with open(path) as f:
        for line in f:
            p = line.rstrip('\n').split('\t')
            if len(p) >= 2:
                rows.append((p + ['-'] * len(ROW_FIELDS))[:len(ROW_FIELDS)])
    w = max([len('scenario')] + [len(r[0]) for r in rows])
    fmt = '%-*s  %-7s %8s %8s %8s %6s %6s  %s'
    print(fmt % (w, 'scenario', 'verdict', 'gps', 'seconds', 'gp/s', 'wall', 'misses',
                 'reason (FAIL) / note (PASS)'))
    for r in rows:
        print(fmt % (w, r[0], r[1], r[2], r[3], r[4], r[5], r[6], '' if r[7] == '-' else r[7]))
    return 0


def main():
    ap = argparse.ArgumentParser(description='judge a trcu guest run')
    ap.add_argument('--dir', help='judge DIR/console.log as DIR/scenario.env says')
    ap.add_argument('--scenario', default='?')
    ap.add_argument('--console')
    ap.add_argument('--markers', default='')
    ap.add_argument('--expect-stall', type=int, default=0)
    ap.add_argument('--expect-fail', action='store_true')
    ap.add_argument('--trcu-args', default='')
    ap.add_argument('--killed', default=None)
    ap.add_argument('--script', default=None)
    ap.add_argument('--wall', type=int, default=None)
    ap.add_argument('--seed', default='', help="the torture's seed: a failure says how to replay it")
    ap.add_argument('--row', action='store_true')
    ap.add_argument('--make-row', nargs=3, metavar=('NAME', 'VERDICT', 'DETAIL'))
    ap.add_argument('--summary')
    a = ap.parse_args()
    if a.row:
        return main_row()
    if a.make_row:
        print(make_row(*a.make_row, wall=a.wall))
        return 0
    if a.summary:
        return main_summary(a.summary)
    if a.dir:
        return main_dir(a.dir)
    if not a.console:
        ap.error('--console or --dir is required')
    return main_judge(a)


if __name__ == '__main__':
    sys.exit(main())
