#!/usr/bin/env python3
"""SASS instructions per return of the realized kernel, by what they do (not a test; bench/realized_sass.sh).

usage: sass_per_return.py DISASM RUN [SRCDIR]
  DISASM  `nvdisasm -gi -c` of a cubin of kernels/realized.cl built by bench/realized_sass.sh (line info on)
  RUN     returns per work-item (RAID_RUN; chunk / work-group width)
  SRCDIR  the tree the cubin was built from (default: this file's repository)
Prints, per category, the instructions of the hot path divided by RUN (the main loop is unrolled, so static
counts are executed counts; the tree's loop is counted once per level body, about its executed cost), the
SASS opcodes, and per pipe: alu (integer, compare, select, min/max: 16 lanes a cycle per scheduler on Hopper,
so a warp instruction holds it 2 cycles), fma (FP32 add/mul/fma and IMAD), mufu (special functions and
conversions, 4 lanes: 8 cycles), lsu, cbu (branches, barriers). Issue-bound cycles per warp and return =
max(all, 2 alu, 8 mufu); times 1e9 / 32 / (132 SMs x 4 schedulers x 1.98 GHz) gives ms per 1e9 returns.
Cold code is left out: raidRoundMagToF32 and raidBitsToDf's general tail, the 8-byte load path of
odd chunk starts and the bounds-checked path of partial chunks (a day of 23,400 returns is 5 whole chunks of
4,096 and one partial), the exact range check when the chunk's largest high word equals RAID_MAXR_HI, and
the general split of a pair beside raidBitsToDfNear. Categories come from the source lines that
nvdisasm names (the outermost realized.cl line of an inlined call).
"""
import collections
import os
import re
import sys

ALU = set('LOP3 IADD3 SHF LEA ISETP FSETP FSEL SEL FMNMX VIMNMX VIMNMX3 PLOP3 I2FP MOV FLO CS2R P2R R2P PRMT BMSK '
          'SGXT IABS POPC IMNMX'.split())
FMA = set('FADD FMUL FFMA IMAD IMUL VIADD'.split())
MUFU = set('MUFU I2F F2I F2F'.split())
LSU = set('LDG LDS STS STG ATOMS REDUX LDC'.split())
CBU = set('BRA BSSY BSYNC BAR WARPSYNC EXIT RET CALL'.split())
ORDER = ['load', 'exponent/range', 'setup', 'split', 'exchange', 'square', 'rs', 'bpv', 'rq', 'tpq', 'medrv',
         'shift', 'fold', 'tree+write', 'other']
LOOP = ['split', 'exchange', 'square', 'rs', 'bpv', 'rq', 'tpq', 'medrv', 'shift', 'fold']


def pipe(op):
    for name, s in (('alu', ALU), ('fma', FMA), ('mufu', MUFU), ('lsu', LSU), ('cbu', CBU)):
        if op in s:
            return name
    return 'uniform' if op.startswith('U') or op in ('S2R', 'S2UR', 'R2UR', 'VOTEU') else 'other'


def parse(path):
    """(address, text, [(file, line), ...] innermost first) of every instruction"""
    out, chain, pending = [], [], []
    for ln in open(path):
        m = re.match(r'\s*//## File "([^"]+)", line (\d+)', ln)
        if m:
            pending.append((os.path.basename(m.group(1)), int(m.group(2))))
            continue
        m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*$', ln)
        if m:
            if pending:
                chain, pending = pending, []
            out.append((int(m.group(1), 16), m.group(2), chain))
    return out


def find(lines, pat, start=0):
    for i in range(start, len(lines)):
        if re.search(pat, lines[i]):
            return i + 1
    raise KeyError(pat)


def landmarks(src):
    d = open(os.path.join(src, 'kernels/raid_df.h')).read().split('\n')
    r = open(os.path.join(src, 'kernels/realized.cl')).read().split('\n')
    a = find(d, r'RaidU32 raidRoundMagToF32\(')
    cold_df = [(a, find(d, r'^}', a))]
    a = find(d, r'RaidDf raidBitsToDf\(')
    cold_df.append((find(d, r'hidden bit of a normal double', a), find(d, r'^}', a)))
    lf = find(r, r'inline void load_run')
    gen = find(r, r'if \(\(off & 1u\) == 0u\) \{', lf) # the general paths after the whole-chunk path: cold
    cold_cl = [(gen, find(r, r'^}', lf)), (find(r, r'if \(smax == RAID_MAXR_HI\)'), find(r, r'sbad = s_bad;'))]
    cats, sec, loop = {}, 'setup', False
    for i, l in enumerate(r, 1):
        s = l.strip()
        if s.startswith('inline void load_run'):
            sec = 'load'
        elif s.startswith('RAID_KERNEL'):
            sec = 'setup'
        elif 'load_run(xc' in s:
            cats[i] = 'load'
            continue
        elif s.startswith('uint mx = 0u'):
            sec = 'exponent/range'
        elif s.startswith('const uint lim'):
            cats[i] = 'exponent/range'
            sec = 'setup'
            continue
        elif s.startswith('for (uint t = 0; t < RAID_RUN; t++) {'):
            sec, loop = 'split', True
        elif s.startswith('/* Fixed-order tree reduction'):
            sec, loop = 'tree+write', False
        elif s.startswith('#if !RAID_INPUT_DF') and not loop:
            sec = 'fold'
        if loop:
            if 'raidBitsToDf(b0' in s or 'raidBitsToDf(b1' in s:
                cats[i] = 'COLD'
                continue
            if ('raidBitsToDf' in s or s.startswith(('const uint b0', 'if (min(b0, b1)', 'const RaidDf r =',
                                                           'const float ah', 'const float al'))):
                cats[i] = 'split'
                continue
            if s.startswith('XS_WINDOW('):
                cats[i], sec = 'exchange', 'split'
                continue
            if s.startswith('const int neg'):
                cats[i] = 'rs'
                continue
            if s.startswith('const int full'):
                cats[i] = 'medrv'
                continue
            if s.startswith(('p2 = p1', 'a2h = a1h')):
                cats[i] = 'shift'
                continue
            for key, name in (('#if RAID_PART & 14', 'exchange'), ('#if RAID_INPUT_DF', 'square'),
                              ('#if RAID_PART & 1', 'rs'), ('#if RAID_PART & 6', 'bpv'), ('#if RAID_PART & 2', 'bpv'),
                              ('#if RAID_PART & 4', 'rq'), ('#if RAID_PART & 8', 'medrv'),
                              ('if (t % RAID_FOLD', 'fold'), ('#else /* f32', 'rs')):
                if s == key or (key.startswith('if') and s.startswith(key)):
                    sec = name
            if 'P = |r_i r_{i-1} r_{i-2}|' in s or s.startswith('const float pp'):
                sec = 'tpq'
        cats[i] = sec
    return cold_df, cold_cl, cats


def main():
    path, run = sys.argv[1], int(sys.argv[2])
    src = sys.argv[3] if len(sys.argv) > 3 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cold_df, cold_cl, cats = landmarks(src)

    def outer(chain):
        for f, l in reversed(chain):
            if f == 'realized.cl':
                return l
        return None

    def cold(chain):
        if cats.get(outer(chain)) == 'COLD':
            return True
        for f, l in chain:
            if f == 'raid_df.h' and any(a <= l <= b for a, b in cold_df):
                return True
            if f == 'realized.cl' and any(a <= l <= b for a, b in cold_cl):
                return True
        return False

    tot, ops, pipes, ncold = collections.Counter(), {}, {}, 0
    for _, text, chain in parse(path):
        words = text.split()
        op = (words[1] if words[0].startswith('@') else words[0]).split('.')[0]
        if op == 'NOP':
            continue
        if cold(chain):
            ncold += 1
            continue
        c = cats.get(outer(chain), 'other')
        tot[c] += 1
        ops.setdefault(c, collections.Counter())[op] += 1
        pipes.setdefault(c, collections.Counter())[pipe(op)] += 1
    print('# %s: RUN %d, cold instructions left out: %d' % (os.path.basename(path), run, ncold))
    for c in ORDER:
        if c in tot:
            print('%-15s %6.2f  %s' % (c, tot[c] / run, ' '.join('%s:%d' % kv for kv in ops[c].most_common(8))))
    for name, cs in (('main loop', LOOP), ('all', list(tot))):
        p = collections.Counter()
        for c in cs:
            p.update(pipes.get(c, {}))
        n = sum(p.values())
        cyc = max(n, 2 * p['alu'], 8 * p['mufu'])
        print('%-15s %6.2f  alu %.1f fma %.1f mufu %.1f lsu %.1f cbu %.1f: issue-bound %.1f cycles = %.2f ms per 1e9'
              % (name, n / run, p['alu'] / run, p['fma'] / run, p['mufu'] / run, p['lsu'] / run, p['cbu'] / run,
                 cyc / run, cyc / run * 1e9 / 32 / (132 * 4 * 1.98e9) * 1e3))


if __name__ == '__main__':
    main()
