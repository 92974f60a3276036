#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the RESULT lines of a `make bench` run into bench.txt, bench.csv
and bench.png (gnuplot).

    scripts/bench-report.py RESULTS_DIR
    scripts/bench-report.py --readme RESULTS_DIR [--note TEXT]
    scripts/bench-report.py --update-readme README.md RESULTS_DIR [--note TEXT]

The second form prints, and the third puts between README.md's
"<!-- bench-table begin -->" and "<!-- bench-table end -->" lines, a
markdown block: one line of conditions (start date and host load from
bench.sh's bench.env, which boots ran, which rows are wall-clock and
which instruction-counted), then the table; neither writes into
RESULTS_DIR.
RESULTS_DIR holds one directory per booted scenario (BENCH-8, ...), each
with its console.log.  Every figure in the table is a ratio of two
numbers measured in the same boot.  A target that cannot be computed
(a scenario not run, a flavour not available) shows "n/a"; a missed
target is reported, it is not an error.  Exit status: 0, or 1 when no
RESULT line was found at all.
"""
import argparse
import csv
import os
import random
import re
import subprocess
import sys

RESULT_RE = re.compile(r'trcuscale: RESULT (.*)$')
SAMPLES_RE = re.compile(r'trcuscale: SAMPLES test=(\S+) flavor=(\S+) '
                        r'tag=(\S+) us=([0-9,]+)')
# (scenario, test, flavor, tag) -> raw latencies, from the SAMPLES lines.
SAMPLES = {}


def parse(results):
    """Return a list of dicts, one per RESULT line, with 'scenario'."""
    rows = []
    for scen in sorted(os.listdir(results)):
        log = os.path.join(results, scen, 'console.log')
        if not os.path.isfile(log):
            continue
        with open(log, 'rb') as f:
            text = f.read().decode('utf-8', 'replace')
        for line in text.splitlines():
            m = SAMPLES_RE.search(line)
            if m:
                key = (scen,) + m.group(1, 2, 3)
                SAMPLES.setdefault(key, []).extend(
                    int(v) for v in m.group(4).split(','))
                continue
            m = RESULT_RE.search(line)
            if not m:
                continue
            d = {'scenario': scen}
            for kv in m.group(1).split():
                if '=' in kv:
                    k, v = kv.split('=', 1)
                    d[k] = v
            rows.append(d)
    return rows


def num(d, k):
    try:
        return float(d[k])
    except (KeyError, ValueError, TypeError):
        return None


def pick(rows, **want):
    return [r for r in rows if all(r.get(k) == v for k, v in want.items())]


def one(rows, key, **want):
    """Mean of @key over the rows matching @want (None if none)."""
    vals = [num(r, key) for r in pick(rows, **want)]
    vals = [v for v in vals if v is not None]
    return sum(vals) / len(vals) if vals else None


def lowest(rows, key, **want):
    vals = [num(r, key) for r in pick(rows, **want)]
    vals = [v for v in vals if v is not None]
    return min(vals) if vals else None


def median(rows, key, **want):
    vals = sorted(v for v in (num(r, key) for r in pick(rows, **want))
                  if v is not None)
    if not vals:
        return None
    n = len(vals)
    return vals[n // 2] if n % 2 else (vals[n // 2 - 1] + vals[n // 2]) / 2


def med(vals):
    v = sorted(vals)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def boot_ci(a, b, rounds=4000, level=0.95):
    """Percentile-bootstrap interval of median(a)/median(b): resample each
    set with replacement @rounds times.  A fixed seed, so that the same
    results directory always gives the same table.  None when either set
    is too small to say anything (fewer than 5 calls)."""
    if len(a) < 5 or len(b) < 5:
        return None
    rng = random.Random(1)
    rs = []
    for _ in range(rounds):
        mb = med(rng.choices(b, k=len(b)))
        if mb:
            rs.append(med(rng.choices(a, k=len(a))) / mb)
    if len(rs) < rounds // 2:
        return None
    rs.sort()
    lo = rs[int(len(rs) * (1 - level) / 2)]
    hi = rs[min(len(rs) - 1, int(len(rs) * (1 + level) / 2))]
    return lo, hi


def samples(rows, test, flavor, tag):
    """The raw latencies behind the rows' scenario for one flavour."""
    for scen in sorted({r['scenario'] for r in rows}):
        v = SAMPLES.get((scen, test, flavor, tag))
        if v:
            return v
    return []


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt(x, nd=2):
    if x is None:
        return 'n/a'
    if isinstance(x, str):
        return x
    return f'{x:.{nd}f}'


class Report:
    """The targets table of bench.txt and the rows of bench.csv."""

    def __init__(self):
        self.table = []   # (target, measured, goal, status, note)
        self.csvrows = []

    def target(self, name, value, goal, ok, note='', noisy=False, ci=False):
        """@ci: (low, high) interval of @value; then the target is met
        only if the whole interval meets it, missed only if none of it
        does, and NOISE otherwise.  None: an interval was wanted but
        there were too few calls for one (NOISE)."""
        if value is None:
            status = 'n/a'
        elif ci is None:
            status = 'NOISE'
            note = 'too few calls for a 95% CI; ' + note
        elif ci:
            good = [ok(ci[0]), ok(ci[1])]
            status = 'met' if all(good) else 'MISSED' if not any(good) \
                else 'NOISE'
            note = f'95% CI [{ci[0]:.3f}, {ci[1]:.3f}]; ' + note
        elif noisy:
            # The same measurement without the change varied by more than
            # the goal allows: neither met nor missed.
            status = 'NOISE'
        else:
            status = 'met' if ok(value) else 'MISSED'
        self.table.append((name, fmt(value, 3) if not isinstance(value, str)
                           else value, goal, status, note))
        self.csvrows.append({'section': 'target', 'metric': name,
                             'value': '' if value is None else value,
                             'goal': goal, 'status': status, 'note': note})

    def info(self, name, value, note, status='info'):
        self.table.append((name, value, '-', status, note))

    def raw(self, rows):
        """Raw numbers to the CSV."""
        for r in rows:
            for k, v in r.items():
                if k in ('scenario', 'test', 'flavor', 'tag', 'cpus'):
                    continue
                try:
                    float(v)
                except ValueError:
                    continue
                self.csvrows.append({'section': r.get('test', ''),
                                     'metric': k, 'flavor': r.get('flavor', ''),
                                     'tag': r.get('tag', ''),
                                     'cpus': r.get('cpus', ''),
                                     'scenario': r['scenario'], 'value': v})


def read_side(rep, main8):
    """1. Read side."""
    rd = pick(main8, test='read')
    floor = one(rd, 'ns', flavor='floor')
    t_ns = one(rd, 'ns', flavor='trcu')
    rep.target('read pair trcu/floor', ratio(t_ns, floor), '<= 1.10',
               lambda v: v <= 1.10,
               f'trcu {fmt(t_ns, 3)} ns, floor {fmt(floor, 3)} ns (TCG ns, irqs off)')
    r_ns = one(rd, 'ns', flavor='rcu')
    rep.target('read pair trcu/rcu', ratio(t_ns, r_ns), '<= 1.0',
               lambda v: v <= 1.0, f'rcu {fmt(r_ns, 3)} ns')
    tb = one(rd, 'ns', flavor='trcu_bh')
    rb = one(rd, 'ns', flavor='rcu_bh')
    rep.target('read pair trcu_bh/rcu_bh', ratio(tb, rb), '<= 1.0',
               lambda v: v <= 1.0,
               f'trcu_bh {fmt(tb, 3)} ns, rcu_bh {fmt(rb, 3)} ns (irqs on)')
    sr = one(rd, 'ns', flavor='srcu')
    rep.info('read pair srcu/floor (info)', fmt(ratio(sr, floor), 3), f'srcu {fmt(sr, 3)} ns')


def gp_target(rep, gp, mode):
    """The synchronize median trcu/rcu target of one mode; rcu's median."""
    tm = one(gp, 'med_us', flavor='trcu')
    rm = one(gp, 'med_us', flavor='rcu')
    n = one(gp, 'calls', flavor='trcu')
    ci = boot_ci(samples(gp, 'gp', 'trcu', mode),
                 samples(gp, 'gp', 'rcu', mode))
    rep.target(f'synchronize median trcu/rcu {mode}', ratio(tm, rm),
               '<= 1.0', lambda v: v <= 1.0,
               f'trcu {fmt(tm, 0)} us, rcu {fmt(rm, 0)} us, '
               f'p90 {fmt(one(gp, "p90_us", flavor="trcu"), 0)}/'
               f'{fmt(one(gp, "p90_us", flavor="rcu"), 0)}, p99 '
               f'{fmt(one(gp, "p99_us", flavor="trcu"), 0)}/'
               f'{fmt(one(gp, "p99_us", flavor="rcu"), 0)} us, '
               f'{fmt(n, 0)} calls', ci=ci)
    return tm, rm


def gp_mode(rep, main8, mode):
    """2. GP latency, idle or busy."""
    gp = pick(main8, test='gp', tag=mode)
    tm, rm = gp_target(rep, gp, mode)
    if mode == 'idle':
        for j in (1, 2):
            jm = one(pick(main8, test='gp', tag=f'idle-jfqs{j}'),
                     'med_us', flavor='trcu')
            if jm is not None:
                rep.info(f'  idle trcu/rcu with jiffies_till_force_qs={j} (info)',
                         fmt(ratio(jm, rm), 3),
                         f'trcu {fmt(jm, 0)} us (default 3: {fmt(tm, 0)} us)')
    st = pick(main8, test='gpstats', tag=mode, flavor='trcu')
    if st:
        g = num(st[-1], 'gps') or 0
        rep.info(f'  trcu {mode}: IPIs and fqs scans per GP (info)',
                 fmt(ratio(num(st[-1], 'ipi'), g)),
                 f'{st[-1].get("gps")} GPs, {st[-1].get("ipi")} IPIs, '
                 f'{st[-1].get("fqs")} force_quiescent_state() calls')
    tbm = one(gp, 'med_us', flavor='trcu_bh')
    rbm = one(gp, 'med_us', flavor='rcu_bh')
    rep.info(f'synchronize median trcu_bh/rcu_bh {mode} (info)',
             fmt(ratio(tbm, rbm), 3),
             f'trcu_bh {fmt(tbm, 0)} us, rcu_bh {fmt(rbm, 0)} us, '
             f'srcu {fmt(one(gp, "med_us", flavor="srcu"), 0)} us')
    te = pick(gp, flavor='trcu_exp')
    re_ = one(gp, 'med_us', flavor='rcu_exp')
    if te and te[0].get('na'):
        rep.info(f'expedited median trcu_exp/rcu_exp {mode}', 'n/a',
                 f'synchronize_trcu_expedited not exported; rcu_exp {fmt(re_, 0)} us',
                 status='n/a')
    else:
        tem = one(gp, 'med_us', flavor='trcu_exp')
        rep.info(f'expedited median trcu_exp/rcu_exp {mode}', fmt(ratio(tem, re_), 3),
                 f'trcu_exp {fmt(tem, 0)} us, rcu_exp {fmt(re_, 0)} us')


def cb_flood(rep, main8):
    """3. Callback flood."""
    cb = pick(main8, test='cb', tag='flood')
    cbb = pick(main8, test='cb', tag='flood-busy')
    ti = one(cb, 'invoked_per_s', flavor='trcu')
    ri = one(cb, 'invoked_per_s', flavor='rcu')
    rep.target('call flood invoked/s trcu/rcu', ratio(ti, ri), '>= 1.0',
               lambda v: v >= 1.0,
               f'trcu {fmt(ti, 0)}/s, rcu {fmt(ri, 0)}/s; peak outstanding '
               f'{fmt(one(cb, "peak_out", flavor="trcu"), 0)} vs '
               f'{fmt(one(cb, "peak_out", flavor="rcu"), 0)} '
               f'({fmt(one(cb, "peak_kb", flavor="trcu"), 0)} vs '
               f'{fmt(one(cb, "peak_kb", flavor="rcu"), 0)} KiB), '
               f'pauses {fmt(one(cb, "pauses", flavor="trcu"), 0)} vs '
               f'{fmt(one(cb, "pauses", flavor="rcu"), 0)}')
    tpo = one(cb, 'peak_out', flavor='trcu')
    rpo = one(cb, 'peak_out', flavor='rcu')
    tib = one(cbb, 'invoked_per_s', flavor='trcu')
    rib = one(cbb, 'invoked_per_s', flavor='rcu')
    rep.info('call flood invoked/s trcu/rcu, busy readers (info)',
             fmt(ratio(tib, rib), 3),
             f'trcu {fmt(tib, 0)}/s (posted '
             f'{fmt(one(cbb, "posted_per_s", flavor="trcu"), 0)}/s), rcu '
             f'{fmt(rib, 0)}/s (posted '
             f'{fmt(one(cbb, "posted_per_s", flavor="rcu"), 0)}/s); peak '
             f'outstanding {fmt(one(cbb, "peak_out", flavor="trcu"), 0)} vs '
             f'{fmt(one(cbb, "peak_out", flavor="rcu"), 0)}')
    tpause = one(cb, 'pauses', flavor='trcu')
    rep.target('call flood peak outstanding trcu/rcu', ratio(tpo, rpo),
               'bounded', lambda v: tpause == 0,
               f'bounded = trcu never reached cb_max outstanding (the poster '
               f'pauses there): trcu paused {fmt(tpause, 0)} times')


def wake_per_gp(en, flavor, tag):
    """Idle-CPU interrupts beyond the idle rate, per call."""
    base = pick(en, flavor='none', tag=tag)
    run = pick(en, flavor=flavor, tag=tag)
    if not base or not run:
        return None
    b, r = base[0], run[-1]
    rate = num(b, 'irqs') / max(num(b, 'cs'), 1)
    extra = num(r, 'irqs') - rate * num(r, 'cs')
    return extra / max(num(r, 'calls'), 1)


def energy(rep, main8):
    """4. Energy: idle-CPU wakeups per GP."""
    en = pick(main8, test='energy')
    trun = pick(en, flavor='trcu', tag='trcu')
    own = None
    if trun:
        gps = num(trun[-1], 'trcu_gps') or 0
        if gps:
            own = ((num(trun[-1], 'trcu_ipi_idle') or 0) +
                   (num(trun[-1], 'trcu_wake_idle') or 0)) / gps
    wt = wake_per_gp(en, 'trcu', 'trcu')
    wr = wake_per_gp(en, 'rcu', 'trcu')
    wr0 = wake_per_gp(en, 'rcu', 'notrcu')
    rep.target('idle-CPU wakeups per GP caused by trcu (own count)', own, '= 0',
               lambda v: v == 0,
               f'/proc/interrupts of idle CPUs, beyond idle rate, per call: '
               f'trcu {fmt(wt)}, rcu {fmt(wr)} (trcu loaded), '
               f'rcu {fmt(wr0)} (trcu not loaded)')
    if trun:
        t = trun[-1]
        rep.info('  trcu energy detail (info)', '-',
                 f'gps {t.get("trcu_gps")}, ipi_idle '
                 f'{t.get("trcu_ipi_idle")}, wake_idle '
                 f'{t.get("trcu_wake_idle")} (request wait '
                 f'{t.get("trcu_wake_idle_req", "-")}), irqs {t.get("irqs")} '
                 f'(loc {t.get("loc")} res {t.get("res")} cal '
                 f'{t.get("cal")}) in {t.get("cs")} cs')


def contention(rep, rows):
    """5. Contention: root-lock acquisitions per GP."""
    ct = pick(rows, test='contention')
    for fo in sorted({int(r['fanout']) for r in ct} if ct else []):
        lv = sorted(pick(ct, fanout=str(fo)), key=lambda r: int(r['level']))
        if not lv:
            continue
        root = lv[0]
        apg = num(root, 'acq_per_gp')
        kids = num(root, 'children')
        # The GP kthread takes every node lock twice per GP (init,
        # cleanup) and the root twice more (->gpnum, ->completed).
        qs = apg - 4 if apg is not None else None
        rep.target(f'root-lock acquisitions per GP, fanout {fo} '
                   f'({root.get("cpus")} CPUs)', apg, f'<= {fmt(kids, 0)}',
                   lambda v, k=kids: v <= k,
                   f'without the GP kthread\'s 4: {fmt(qs)}; levels: ' +
                   ', '.join(f'L{r["level"]} {r["nodes"]}n '
                             f'{fmt(num(r, "acq_per_gp"))}' for r in lv))


def hook_tax(rep, main8):
    """6. Hook tax."""
    for test, what in (('ctxsw', 'context switch'), ('ipi', 'interrupt')):
        tx = pick(main8, test=test)
        a = median(tx, 'ns', tag='notrcu')
        b = median(tx, 'ns', tag='trcu')
        r = ratio(b, a)
        rmin = ratio(lowest(tx, 'ns', tag='trcu'),
                     lowest(tx, 'ns', tag='notrcu'))
        # Noise band: spread of the rounds without trcu.
        lo = lowest(tx, 'ns', tag='notrcu')
        hi = max([num(x, 'ns') for x in pick(tx, tag='notrcu')] or [0])
        rep.target(f'hook tax, {what} ({test}), median of rounds',
                   None if r is None else (r - 1) * 100, '<= 2 %',
                   lambda v: v <= 2.0,
                   f'{fmt(b, 0)} ns with trcu, {fmt(a, 0)} ns without; best-of '
                   f'rounds tax {fmt(None if rmin is None else (rmin - 1) * 100, 1)} %; '
                   f'spread without trcu {fmt(lo, 0)}..{fmt(hi, 0)} ns (all: ' +
                   ' '.join(f'{x.get("tag")}={x.get("ns")}' for x in tx) + ')',
                   noisy=bool(lo) and hi / lo - 1 > 0.02)


def icount_rows(rows):
    """The instruction-counted boots (BENCH-ICOUNT, bench.sh boots it twice
    under labels BENCH-ICOUNT-1, -2): {label: rows}."""
    boots = {}
    for r in rows:
        if r['scenario'].startswith('BENCH-ICOUNT'):
            boots.setdefault(r['scenario'], []).append(r)
    return boots


def icount_metrics(rows):
    """{name: value} of one instruction-counted boot: the medians of the
    tax rounds and the read-side cost of each flavour (guest ns, that is
    instructions at shift 0)."""
    m = {}
    for test in ('ctxsw', 'ipi'):
        for tag in ('notrcu', 'trcu'):
            m[f'{test} {tag}'] = median(pick(rows, test=test), 'ns', tag=tag)
    for r in pick(rows, test='read'):
        m[f'read {r["flavor"]}'] = num(r, 'ns')
    return m


def icount(rep, rows):
    """8. Instruction-counted costs: hook tax and read pairs, and how far
    two boots of the same code agree."""
    boots = icount_rows(rows)
    if not boots:
        return
    ms = [icount_metrics(boots[k]) for k in sorted(boots)]
    m = ms[0]
    for test, what in (('ctxsw', 'context switch'), ('ipi', 'interrupt')):
        a, b = m[f'{test} notrcu'], m[f'{test} trcu']
        r = ratio(b, a)
        rep.target(f'hook tax, {what} ({test}), instruction-counted',
                   None if r is None else (r - 1) * 100, '<= 2 %',
                   lambda v: v <= 2.0,
                   f'{fmt(b, 0)} ns with trcu, {fmt(a, 0)} ns without '
                   '(-icount shift=0: 1 ns = 1 instruction, 1 vCPU)')
    tb, rb = m.get('read trcu_bh'), m.get('read rcu_bh')
    rep.target('read pair trcu_bh/rcu_bh, instruction-counted',
               ratio(tb, rb), '<= 1.05', lambda v: v <= 1.05,
               f'trcu_bh {fmt(tb, 3)}, rcu_bh {fmt(rb, 3)} instructions')
    t, r = m.get('read trcu'), m.get('read rcu')
    rep.target('read pair trcu/rcu, instruction-counted', ratio(t, r),
               '<= 1.0', lambda v: v <= 1.0,
               f'trcu {fmt(t, 3)}, rcu {fmt(r, 3)} instructions')
    if len(ms) < 2:
        rep.info('icount: two boots agree', 'n/a', 'only one boot')
        return
    dev = {}
    for k, v in ms[0].items():
        w = ms[1].get(k)
        if v and w is not None:
            dev[k] = abs(w - v) / v * 100
    worst = max(dev, key=dev.get) if dev else None
    rep.target('icount: two boots agree (largest difference, %)',
               dev.get(worst), '<= 1 %', lambda v: v <= 1.0,
               f'worst: {worst}; ' + ', '.join(
                   f'{k} {fmt(ms[0][k], 1)}/{fmt(ms[1][k], 1)}'
                   for k in sorted(dev)))


def scale(rep, rows):
    """7. Scale: synchronize median per vCPU count.  Returns
    {cpus: {flavor: us}} and {cpus: (low, high)}, the 95 % interval of
    each trcu/rcu ratio (missing where there were too few calls)."""
    sc = {}
    scen = {}
    cis = {}
    for r in pick(rows, test='gp', tag='scale'):
        c = int(r['cpus'])
        sc.setdefault(c, {})[r['flavor']] = num(r, 'med_us')
        scen[c] = [x for x in rows if x['scenario'] == r['scenario']]
    cpus = sorted(sc)
    for c in cpus:
        ci = boot_ci(samples(scen[c], 'gp', 'trcu', 'scale'),
                     samples(scen[c], 'gp', 'rcu', 'scale'))
        if ci:
            cis[c] = ci
        cit = f'95% CI [{ci[0]:.3f}, {ci[1]:.3f}]; ' if ci else ''
        rep.info(f'scale: synchronize median trcu/rcu at {c} vCPUs',
                 fmt(ratio(sc[c].get('trcu'), sc[c].get('rcu')), 3),
                 f'{cit}trcu {fmt(sc[c].get("trcu"), 0)} us, rcu '
                 f'{fmt(sc[c].get("rcu"), 0)} us')
    if len(cpus) >= 2:
        lo, hi = cpus[0], cpus[-1]
        gt = ratio(sc[hi].get('trcu'), sc[lo].get('trcu'))
        gr = ratio(sc[hi].get('rcu'), sc[lo].get('rcu'))
        rep.target(f'latency growth {lo}->{hi} vCPUs trcu/rcu', ratio(gt, gr),
                   '<= 1.0', lambda v: v <= 1.0,
                   f'trcu x{fmt(gt)}, rcu x{fmt(gr)}')
    else:
        rep.target('latency growth 8->128 vCPUs trcu/rcu', None, '<= 1.0',
                   lambda v: True, 'needs two scale points')
    return sc, cis


def scale_busy(rep, rows):
    """7b. Busy scale: synchronize median trcu/rcu per vCPU count with
    every vCPU busy, and one target over all points: met only if every
    point's interval is at or below 1.0, missed if some point's whole
    interval is above it."""
    pts = {}
    for r in pick(rows, test='gp', tag='scale-busy'):
        pts.setdefault(int(r['cpus']), []).append(r)
    got = []
    for c in sorted(pts):
        scen = [x for x in rows if x['scenario'] == pts[c][0]['scenario']]
        tm = one(pts[c], 'med_us', flavor='trcu')
        rm = one(pts[c], 'med_us', flavor='rcu')
        ci = boot_ci(samples(scen, 'gp', 'trcu', 'scale-busy'),
                     samples(scen, 'gp', 'rcu', 'scale-busy'))
        cit = f'95% CI [{ci[0]:.3f}, {ci[1]:.3f}]; ' if ci else ''
        rep.info(f'scale: busy synchronize median trcu/rcu at {c} vCPUs',
                 fmt(ratio(tm, rm), 3),
                 f'{cit}trcu {fmt(tm, 0)} us, rcu {fmt(rm, 0)} us')
        if ratio(tm, rm) is not None:
            got.append((c, ratio(tm, rm), ci))
    if not got:
        return
    cis = [g[2] for g in got]
    ci = None if None in cis else (max(c[0] for c in cis),
                                   max(c[1] for c in cis))
    rep.target('busy synchronize median trcu/rcu, every scale point',
               max(g[1] for g in got), '<= 1.0', lambda v: v <= 1.0,
               f'largest of {len(got)} points ({", ".join(str(g[0]) for g in got)}'
               ' vCPUs); interval: largest low and high ends', ci=ci)


def boot_walls(res):
    """Wall times of the boots (run-qemu's summary rows: name, verdict, ..., wall)."""
    walls = []
    srows = os.path.join(res, 'summary.rows')
    if os.path.isfile(srows):
        with open(srows) as f:
            for line in f:
                p = line.rstrip('\n').split('\t')
                if len(p) >= 6:
                    walls.append(f'{p[0]} {p[1]} {p[5]} s')
    return walls


def write_txt(res, table, walls):
    w0 = max(len(t[0]) for t in table)
    out = [f'trcu bench, results {res}', '',
           'Every figure is a ratio of two numbers from the same boot '
           '(QEMU TCG: absolute ns/us are emulated time).', '',
           f'{"target":<{w0}}  {"measured":>9}  {"goal":<12} {"status":<7} detail']
    for name, val, goal, status, note in table:
        out.append(f'{name:<{w0}}  {val:>9}  {goal:<12} {status:<7} {note}')
    out += ['', 'boots: ' + '; '.join(walls)]
    with open(os.path.join(res, 'bench.txt'), 'w') as f:
        f.write('\n'.join(out) + '\n')
    print('\n'.join(out))


def write_csv(res, csvrows):
    keys = ['section', 'metric', 'flavor', 'tag', 'cpus', 'scenario',
            'value', 'goal', 'status', 'note']
    with open(os.path.join(res, 'bench.csv'), 'w', newline='') as f:
        wr_ = csv.DictWriter(f, fieldnames=keys)
        wr_.writeheader()
        for r in csvrows:
            wr_.writerow({k: r.get(k, '') for k in keys})


GP_FLAVORS = ('trcu', 'rcu', 'trcu_bh', 'rcu_bh', 'srcu', 'trcu_exp',
              'rcu_exp')


def cpus_axis(cpus):
    """gnuplot x axis for a vCPU count: log2, a tic at each count measured,
    and room either side so that a single count is not an empty range."""
    return (f"set logscale x 2\n"
            f"set xrange [{min(cpus) / 1.5}:{max(cpus) * 1.5}]\n"
            f"set xtics (" + ', '.join(f'"{c}" {c}' for c in cpus) + ")\n")


# After each panel: the next one starts from gnuplot's defaults.
AXES_RESET = '''unset logscale
unset y2tics
unset y2label
set ytics mirror
set xtics norotate autofreq
set format y
unset grid
unset arrow
set autoscale
'''


def scale_panel(res, sc):
    """The gnuplot panel: synchronize median vs vCPUs ('' without data)."""
    dat = os.path.join(res, 'bench-scale.dat')
    cpus = sorted(sc)
    with open(dat, 'w') as f:
        for c in cpus:
            f.write(f'{c} {sc[c].get("trcu") or "NaN"} '
                    f'{sc[c].get("rcu") or "NaN"}\n')
    series = [(col, fl) for col, fl in ((2, 'trcu'), (3, 'rcu'))
              if any(sc[c].get(fl) for c in cpus)]
    if not series:
        return ''
    return f'''
set title 'idle synchronize median vs vCPUs'
set xlabel 'vCPUs'
set ylabel 'us (log)'
{cpus_axis(cpus)}set logscale y
set format y '%g'
set key below
plot ''' + ', \\\n     '.join(f"'{dat}' using 1:{col} with linespoints "
                             f"pt 7 title '{fl}'" for col, fl in series) + \
        '\n' + AXES_RESET


def gp_panel(res, main8):
    """The gnuplot panel: GP medians of every flavour measured in the
    BENCH-8 (or smoke) boot, idle and busy ('' without data).  Points
    rather than bars on a log axis (trcu_exp and srcu take microseconds,
    busy GPs seconds), and the flavour names rotated so that
    trcu_bh/rcu_bh do not run into each other."""
    dat2 = os.path.join(res, 'bench-gp.dat')
    gp = pick(main8, test='gp')
    meds = []
    for fl in GP_FLAVORS:
        vi = one(pick(gp, tag='idle'), 'med_us', flavor=fl)
        vb = one(pick(gp, tag='busy'), 'med_us', flavor=fl)
        if vi is not None or vb is not None:
            meds.append((fl, vi, vb))
    if not meds:
        return ''
    with open(dat2, 'w') as f:
        f.write('# x flavour idle_med_us busy_med_us\n')
        for x, (fl, vi, vb) in enumerate(meds):
            f.write(f'{x} {fl} {vi if vi is not None else "NaN"} '
                    f'{vb if vb is not None else "NaN"}\n')
    vals = [v for m in meds for v in m[1:] if v]
    cpus = sorted({r['cpus'] for r in gp if r.get('cpus')}, key=int)
    ncpu = ', ' + '/'.join(cpus) + ' vCPUs' if cpus else ''
    series = []
    if any(m[1] is not None for m in meds):
        series.append(f"'{dat2}' using ($1-0.1):3:xtic(2) with points "
                      f"pt 7 ps 1.6 title 'idle'")
    if any(m[2] is not None for m in meds):
        series.append(f"'{dat2}' using ($1+0.1):4" +
                      ('' if series else ':xtic(2)') +
                      " with points pt 5 ps 1.6 title 'busy'")
    return f'''
set title 'synchronize median per flavour{ncpu}'
set xlabel ''
set ylabel 'us (log)'
set logscale y
set format y '%g'
set yrange [{min(vals) / 3}:{max(vals) * 40}]
set xrange [-0.6:{len(meds) - 0.4}]
set xtics rotate by -40 nomirror
set grid ytics
set key inside top right horizontal
plot ''' + ', \\\n     '.join(series) + '\n' + AXES_RESET


def root_locks(rows):
    """{fanout: {cpus: root-level acquisitions per GP}} of trcu, from the
    contention rows (BENCH-32 and BENCH-SMOKE run them)."""
    out = {}
    for r in pick(rows, test='contention', level='0'):
        v = num(r, 'acq_per_gp')
        if v is not None and r.get('cpus') and r.get('fanout'):
            out.setdefault(int(r['fanout']), {})[int(r['cpus'])] = v
    return out


def ratio_panel(res, sc, cis, locks):
    """The gnuplot panel of the scale rows that decide the targets: the
    idle synchronize median trcu/rcu against vCPUs with its bootstrap
    95 % interval (the dotted line is the target, 1.0), and on the
    right axis trcu's root-lock acquisitions per GP against vCPUs, one
    series per fanout measured.  Either half is left out when the run
    has no data for it; '' when it has none for both."""
    dat = os.path.join(res, 'bench-ratio.dat')
    pts = []
    for c in sorted(sc):
        r = ratio(sc[c].get('trcu'), sc[c].get('rcu'))
        if r is not None:
            lo, hi = cis.get(c, (r, r))
            pts.append((c, r, lo, hi))
    with open(dat, 'w') as f:
        f.write('# vcpus trcu/rcu ci_low ci_high\n')
        for p in pts:
            f.write(' '.join(str(x) for x in p) + '\n')
    datl = os.path.join(res, 'bench-rootlock.dat')
    fos = sorted(locks)
    with open(datl, 'w') as f:
        for fo in fos:
            f.write(f'# fanout {fo}: vcpus root_acq_per_gp\n')
            for c in sorted(locks[fo]):
                f.write(f'{c} {locks[fo][c]}\n')
            f.write('\n\n')
    if not pts and not fos:
        return ''
    cpus = sorted({p[0] for p in pts} |
                  {c for fo in fos for c in locks[fo]})
    series = []
    if pts:
        series.append(f"'{dat}' using 1:2:3:4 with yerrorlines pt 7 lw 2 "
                      f"title 'trcu/rcu, 95% CI'")
    for i, fo in enumerate(fos):
        series.append(f"'{datl}' index {i} using 1:2 axes x1y2 with "
                      f"linespoints pt {4 + 2 * i} ps 1.6 dt 2 "
                      f"title 'root lock, fanout {fo}'")
    y2 = ''
    if fos:
        y2 = ("set y2label 'trcu root-lock acquisitions per GP (dashed)'\n"
              "set y2tics\nset ytics nomirror\nset y2range [0:*]\n")
    title = 'scale: trcu/rcu and root lock vs vCPUs'
    if not fos:
        title += '\\n(no root-lock rows in this run)'
    elif not pts:
        title += '\\n(no scale rows in this run)'
    return f'''
set title "{title}"
set xlabel 'vCPUs'
set ylabel 'idle synchronize median trcu/rcu (target <= 1)'
{cpus_axis(cpus)}set yrange [0:{max([1.2] + [p[3] * 1.15 for p in pts])}]
{y2}set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 3 lc rgb 'gray40'
set key below horizontal maxcols 2
plot ''' + ', \\\n     '.join(series) + '\n' + AXES_RESET


def draw_png(res, sc, cis, rows, main8):
    """bench.png: synchronize median vs vCPUs, the GP medians of every
    flavour at 8 vCPUs, and the trcu/rcu ratio with root-lock
    acquisitions against vCPUs.  A partial run (--scenarios without
    BENCH-8, the smoke run's single scenario) has no numbers for some
    panels or series, and gnuplot fails on a plot whose points are all
    NaN: draw only the panels and series that have data."""
    panels = [p for p in (scale_panel(res, sc), gp_panel(res, main8),
                          ratio_panel(res, sc, cis, root_locks(rows))) if p]
    if not panels:
        print('bench-report: no latency numbers, bench.png not drawn',
              file=sys.stderr)
        return
    png = os.path.join(res, 'bench.png')
    gp = f'''
set terminal png size {600 * len(panels)},540 noenhanced
set output '{png}'
set multiplot layout 1,{len(panels)} title 'trcu bench ({os.path.basename(os.path.abspath(res))}, QEMU TCG)'
''' + ''.join(panels) + 'unset multiplot\n'
    try:
        subprocess.run(['gnuplot'], input=gp, text=True, check=True,
                       capture_output=True)
    except OSError as e:
        print(f'bench-report: gnuplot failed: {e}', file=sys.stderr)
    except subprocess.CalledProcessError as e:
        print(f'bench-report: gnuplot failed: {e.stderr.strip()}',
              file=sys.stderr)


README_BEGIN = '<!-- bench-table begin -->'
README_END = '<!-- bench-table end -->'
# What a full `make bench` boots (scripts/bench.sh without options).
FULL_RUN = ('BENCH-8', 'BENCH-16', 'BENCH-32', 'BENCH-64', 'BENCH-128',
            'BENCH-ICOUNT-1', 'BENCH-ICOUNT-2')


def read_env(res):
    """bench.sh's bench.env: {key: rest of the line} ({} if absent)."""
    env = {}
    try:
        with open(os.path.join(res, 'bench.env')) as f:
            for line in f:
                k, _, v = line.strip().partition(' ')
                env[k] = v
    except OSError:
        pass
    return env


def conditions(res, rows, note):
    """One line: when, how loaded the host was, which boots, which clock."""
    env = read_env(res)
    scens = sorted({r['scenario'] for r in rows},
                   key=lambda s: (not s[6:].isdigit(),
                                  int(s[6:]) if s[6:].isdigit() else 0, s))
    out = []
    if 'date' in env:
        out.append(env['date'].replace('T', ' ').replace('Z', ' UTC'))
    else:
        out.append('start date not recorded (no bench.env)')
    if 'loadavg' in env:
        cores = f' on {env["nproc"]} host CPUs' if 'nproc' in env else ''
        out.append(f'host load average {env["loadavg"]} (1/5/15 min) at '
                   f'the start{cores}')
    else:
        out.append('host load not recorded')
    if 'BENCH-SMOKE' in scens:
        out.append('BENCH-SMOKE (tiny counts: checks that each '
                   'measurement runs, not how fast)')
    elif all(s in scens for s in FULL_RUN):
        out.append('full make bench: ' + ', '.join(scens))
    else:
        out.append(', '.join(scens) + ' only, not the full make bench '
                   '(not run: ' +
                   ', '.join(s for s in FULL_RUN if s not in scens) + ')')
    if icount_rows(rows):
        out.append('clock: the rows marked icount are instruction counts '
                   '(-icount shift=0), all others wall-clock under QEMU TCG')
    else:
        out.append('clock: every row wall-clock under QEMU TCG (no -icount '
                   'boot in this run)')
    if note:
        out.append(note)
    return f'Conditions: results {os.path.basename(os.path.abspath(res))}, ' + \
        '; '.join(out) + '.'


def md_cell(text):
    return str(text).strip().replace('|', '\\|')


def readme_block(res, rows, table, walls, note):
    """The markdown block README's Measurements section holds: the
    conditions line first, then the rows that have a goal and the
    per-vCPU scale rows (the other info rows and the per-round lists stay
    in bench.txt, to keep README a user's page)."""
    out = [conditions(res, rows, note), '',
           '| target | measured | goal | status | clock | detail |',
           '|---|---:|---|---|---|---|']
    for name, val, goal, status, detail in table:
        if status == 'info' and not name.startswith('scale:'):
            continue
        detail = detail.split(' (all: ')[0]
        clock = 'icount' if ('instruction-counted' in name or
                             name.startswith('icount')) else 'TCG'
        out.append('| ' + ' | '.join(md_cell(x) for x in
                                     (name, val, goal, status, clock,
                                      detail)) + ' |')
    out += ['', 'Boots: ' + ('; '.join(walls) if walls else 'n/a') + '.']
    return '\n'.join(out) + '\n'


def update_readme(path, block):
    """Replace what is between README_BEGIN and README_END in @path."""
    with open(path) as f:
        text = f.read()
    b = text.find(README_BEGIN)
    e = text.find(README_END)
    if b < 0 or e < b:
        print(f'bench-report: {path} has no {README_BEGIN} ... '
              f'{README_END} markers', file=sys.stderr)
        return 1
    b += len(README_BEGIN)
    with open(path, 'w') as f:
        f.write(text[:b] + '\n' + block + text[e:])
    return 0


def main():
    ap = argparse.ArgumentParser(
        description='Turn the RESULT lines of a make bench run into '
        'bench.txt, bench.csv and bench.png, or into the markdown block '
        'of README.md\'s Measurements section.')
    ap.add_argument('results', metavar='RESULTS_DIR')
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument('--readme', action='store_true',
                      help='print the README block (conditions line, then '
                      'the table) instead of writing bench.txt/csv/png')
    mode.add_argument('--update-readme', metavar='README',
                      help='put the README block between the '
                      f'"{README_BEGIN}" and "{README_END}" lines of README')
    ap.add_argument('--note', default='',
                    help='appended to the conditions line (what bench.env '
                    'cannot know, e.g. other guests on the host)')
    args = ap.parse_args()
    res = args.results
    rows = parse(res)
    if not rows:
        print('bench-report: no RESULT lines under ' + res, file=sys.stderr)
        return 1
    rep = Report()
    rep.raw(rows)
    main8 = [r for r in rows if r['scenario'] in ('BENCH-8', 'BENCH-SMOKE')]
    read_side(rep, main8)
    for mode in ('idle', 'busy'):
        gp_mode(rep, main8, mode)
    cb_flood(rep, main8)
    energy(rep, main8)
    contention(rep, rows)
    hook_tax(rep, main8)
    icount(rep, rows)
    sc, cis = scale(rep, rows)
    scale_busy(rep, rows)
    if args.readme or args.update_readme:
        block = readme_block(res, rows, rep.table, boot_walls(res), args.note)
        if args.readme:
            sys.stdout.write(block)
            return 0
        return update_readme(args.update_readme, block)
    write_txt(res, rep.table, boot_walls(res))
    write_csv(res, rep.csvrows)
    draw_png(res, sc, cis, rows, main8)
    return 0


if __name__ == '__main__':
    sys.exit(main())
