#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge one trcu guest run from its console log and its marker file.

    verdict.py --scenario NAME --console console.log --markers markers.log \
               [--expect-stall 0|1] [--trcu-args "..."] [--killed REASON] [--wall S]

prints
    VERDICT NAME: PASS (gps N, S s)        or   VERDICT NAME: FAIL: reason; reason...
    RESULT<TAB>NAME<TAB>PASS|FAIL<TAB>gps<TAB>seconds<TAB>gp/s<TAB>wall<TAB>reasons
and exits 0 on PASS, 1 on FAIL.  The pass rules are DESIGN.md's ("Guest and
verdicts"); the console lines are the contract's.

    verdict.py --row < verdict.txt      the RESULT fields, tab-separated (a summary row)
    verdict.py --summary summary.rows   the summary table
"""
import argparse
import re
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


def judge(console, markers, expect_stall=False, trcu_args='', killed=None, script=None):
    """Return (reasons, fields).  An empty reason list means PASS."""
    reasons = []
    fields = {'gps': None, 'seconds': None, 'notes': []}
    lines = [l.rstrip('\r\n') for l in console.splitlines()]
    # Markers come from the second serial port; console copies are only a fallback
    # for the timestamps.
    marks = [m.group(1).strip() for m in map(MARK_RE.search, markers.splitlines()) if m]

    def mark_lines(prefix):
        return [m for m in marks if m.startswith(prefix)]

    panic = [l for l in lines if 'Kernel panic' in l]

    if not mark_lines('START'):
        r = 'guest never reached /init'
        if killed:
            r += ' (%s)' % killed
        reasons.append(r)
        if panic:
            reasons.append('kernel panic: %s' % short(panic[0]))
        else:
            bad = [l for l in lines if re.search(r'BUG:|Oops|WARNING:', l)]
            if bad:
                reasons.append('kernel: %s' % short(bad[0]))
        return reasons, fields

    insmod_failed = False
    for m in mark_lines('INSMOD'):
        mm = re.match(r'INSMOD (\S+) rc=(\d+)', m)
        if mm and mm.group(2) != '0':
            insmod_failed = True
            why = ''
            for l in lines:
                if re.search(r'\b%s: ' % re.escape(mm.group(1).replace('trcutorture', 'trcu')), l) \
                        and 'TRCU-MARK' not in l:
                    why = short(l)
            reasons.append('insmod %s failed (rc %s)%s' % (mm.group(1), mm.group(2),
                                                          ': last line "%s"' % why if why else ''))

    ends = mark_lines('END ')
    if not ends:
        if panic:
            r = 'guest died: no end marker after a kernel panic'
        else:
            r = 'hang: no end marker'
        r += ' (last step: %s)' % marks[-1]
        if killed:
            r += ' (%s)' % killed
        reasons.append(r)
    for m in mark_lines('END-OF-TEST timeout'):
        reasons.append('torture end line not seen in the guest (%s)' % m[len('END-OF-TEST '):])
    for m in mark_lines('RMMOD'):
        mm = re.match(r'RMMOD (\S+) rc=(\d+)', m)
        if mm and mm.group(2) != '0':
            reasons.append('rmmod %s failed (rc %s)' % (mm.group(1), mm.group(2)))
    for m in mark_lines('GUEST_'):
        mm = re.match(r'(GUEST_\w+) rc=(\d+)', m)
        if mm and mm.group(2) != '0':
            reasons.append('%s failed (rc %s)' % (mm.group(1), mm.group(2)))

    if script:
        judge_script(marks, script, reasons, fields)

    # --- torture result and statistics -------------------------------------
    if not insmod_failed and not script:
        end = [l for l in lines if END_RE.search(l)]
        if not end:
            reasons.append('no torture end line')
        elif END_RE.search(end[-1]).group(1) != 'SUCCESS':
            reasons.append('torture reported FAILURE')

        stats = [l for l in lines if STATS_RE.search(l)]
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
        if stats:
            o = ONOFF_RE.search(stats[-1])
            if o:
                a, b, c, d = map(int, o.groups())
                if a != b or c != d:
                    reasons.append('hotplug: %d/%d onlines and %d/%d offlines succeeded'
                                   % (a, b, c, d))
                elif b or d:
                    # A hotplug scenario that never hotplugged proves little:
                    # say how many operations the torture did (onoff: a/b:c/d
                    # = onlines ok/tried : offlines ok/tried).
                    fields['notes'].append('hotplug %d ops (onoff: %d/%d:%d/%d)'
                                           % (a + c, a, b, c, d))
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

    # --- stalls -------------------------------------------------------------
    stall_timeout = trcu_param(trcu_args, 'stall_timeout', 21)
    # line indexes allowed: an expected stall report, or a script's provoked warning
    excused = expected_bad(lines)
    trcu_stalls = [(i, l) for i, l in enumerate(lines) if TRCU_STALL_RE.search(l)]
    if expect_stall:
        inject = [(i, l) for i, l in enumerate(lines) if STALL_INJECT_RE.search(l)]
        if not inject:
            reasons.append('expected stall: the torture never printed "stall_cpu: stalling CPU"')
        else:
            _, il = inject[0]
            cpu = int(STALL_INJECT_RE.search(il).group(1))
            secs = int(STALL_INJECT_RE.search(il).group(2))
            t_inj = ts_of(il)
            limit = stall_timeout + 5
            good = []
            for i, l in trcu_stalls:
                c = int(TRCU_STALL_RE.search(l).group(3))
                t = ts_of(l)
                dt = (t - t_inj) if (t is not None and t_inj is not None) else None
                if c != cpu:
                    reasons.append('stall report names CPU %d, but the torture stalled CPU %d: %s'
                                   % (c, cpu, short(l)))
                elif dt is not None and dt < 0:
                    reasons.append('stall report before the stall began: %s' % short(l))
                elif dt is not None and dt > secs + limit:
                    reasons.append('unexpected stall (%.1f s after the stall began): %s'
                                   % (dt, short(l)))
                else:
                    good.append((i, dt))
            if not trcu_stalls:
                reasons.append('expected stall missing: no trcu stall report for CPU %d' % cpu)
            elif good and all(dt is not None and dt > limit for _, dt in good):
                reasons.append('stall report too late: %.1f s after the stall on CPU %d began '
                               '(limit stall_timeout + 5 = %d s)' % (good[0][1], cpu, limit))
            elif not good and not any('names CPU' in r for r in reasons):
                reasons.append('expected stall missing: no valid trcu stall report for CPU %d' % cpu)
        # A stall report may carry a backtrace: excuse "Call Trace" lines within
        # 2 s after a trcu stall line, unless a BUG/WARNING/Oops came in between.
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
    else:
        # A script's provoked stall (inside EXPECT-BAD) is not unexpected.
        for _, l in [(i, l) for i, l in trcu_stalls if i not in excused][:1]:
            reasons.append('unexpected stall: %s' % short(l))
    # Other trcu stall reports (e.g. about the hierarchy, not a CPU) are never expected.
    for i, l in enumerate(lines):
        if i in excused:
            continue
        if TRCU_ANY_STALL_RE.search(l) and not TRCU_STALL_RE.search(l):
            reasons.append('unexpected stall: %s' % short(l))
            break
    for i, l in enumerate(lines):
        if i in excused:
            continue
        if KERNEL_STALL_RE.search(l) and 'trcu: INFO' not in l:
            reasons.append('kernel stall warning: %s' % short(l))
            break

    # --- forbidden lines ---------------------------------------------------
    for label, rx in BAD_PATTERNS:
        hits = [l for i, l in enumerate(lines) if rx.search(l) and i not in excused
                and 'TRCU-MARK' not in l]
        if hits:
            more = ' (+%d more)' % (len(hits) - 1) if len(hits) > 1 else ''
            reasons.append('%s line: %s%s' % (label, short(hits[0]), more))
    return reasons, fields


def fmt_num(v, spec):
    return '-' if v is None else format(v, spec)


def main_judge(a):
    def read(path):
        try:
            with open(path, errors='replace') as f:
                return f.read()
        except OSError:
            return ''
    reasons, fields = judge(read(a.console), read(a.markers), a.expect_stall == 1,
                            a.trcu_args, a.killed, a.script)
    gps, secs = fields['gps'], fields['seconds']
    rate = gps / secs if gps is not None and secs else None
    if reasons:
        print('VERDICT %s: FAIL: %s' % (a.scenario, '; '.join(reasons)))
    else:
        print('VERDICT %s: PASS (gps %s, %s s%s)' % (a.scenario, fmt_num(gps, 'd'),
                                                  fmt_num(secs, '.0f'),
                                                  ''.join(', ' + n for n in fields['notes'])))
    # Last field: the reasons of a FAIL, or the notes of a PASS.
    print('\t'.join(['RESULT', a.scenario, 'FAIL' if reasons else 'PASS', fmt_num(gps, 'd'),
                     fmt_num(secs, '.1f'), fmt_num(rate, '.1f'),
                     '-' if a.wall is None else str(a.wall),
                     '; '.join(reasons or fields['notes']) or '-']))
    return 1 if reasons else 0


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
                rows.append((p + ['-'] * 7)[:7])
    w = max([len('scenario')] + [len(r[0]) for r in rows])
    print('%-*s  %-7s %8s %8s %8s %6s  %s' % (w, 'scenario', 'verdict', 'gps', 'seconds',
                                              'gp/s', 'wall', 'reason (FAIL) / note (PASS)'))
    for r in rows:
        print('%-*s  %-7s %8s %8s %8s %6s  %s' % (w, r[0], r[1], r[2], r[3], r[4], r[5],
                                                  '' if r[6] == '-' else r[6]))
    return 0


def main():
    ap = argparse.ArgumentParser(description='judge a trcu guest run')
    ap.add_argument('--scenario', default='?')
    ap.add_argument('--console')
    ap.add_argument('--markers', default='')
    ap.add_argument('--expect-stall', type=int, default=0)
    ap.add_argument('--trcu-args', default='')
    ap.add_argument('--killed', default=None)
    ap.add_argument('--script', default=None)
    ap.add_argument('--wall', type=int, default=None)
    ap.add_argument('--row', action='store_true')
    ap.add_argument('--summary')
    a = ap.parse_args()
    if a.row:
        return main_row()
    if a.summary:
        return main_summary(a.summary)
    if not a.console:
        ap.error('--console is required')
    return main_judge(a)


if __name__ == '__main__':
    sys.exit(main())
