#!/usr/bin/env python3
"""parray tests: recompute every line numeric_ops prints with Python's decimal module and compare.

    numeric_oracle.py PROGRAM [SEED [COUNT]]

PROGRAM is tests/matrix/numeric_ops.c built; its line formats are described there.  The rules checked are the
ones documented in include/parray/plcuda/numeric.h and money.h: exact + - *, / at scale
min(38, max(sa, sb) + 6) or at a given scale (divs), rounding half away from zero (decimal's ROUND_HALF_UP), 38 digits at most, and the
error flags (1 overflow, 2 division by zero, 4 bad text, 8 bad scale).  Exit 0 when every line agrees, 1
otherwise (the first mismatches printed)."""
import decimal
import re
import subprocess
import sys
from decimal import Decimal

CTX = decimal.Context(prec=500, rounding=decimal.ROUND_HALF_UP, Emin=-10000, Emax=10000)
decimal.setcontext(CTX)
LIMIT = 10 ** 38
OVF, DIVZ, SYNTAX, SCALE = 1, 2, 4, 8
I64 = (-2 ** 63, 2 ** 63 - 1)
TEXT_RE = re.compile(r'^[ \t\n\r\f\v]*([+-]?)([0-9]*)(?:\.([0-9]*))?[ \t\n\r\f\v]*\Z')


def i128(hi, lo):
    u = (int(hi, 16) << 64) | int(lo, 16)
    return u - (1 << 128) if u >> 127 else u


def val(tok):
    """'hi:lo/s' -> (integer, scale)."""
    hl, s = tok.split('/')
    hi, lo = hl.split(':')
    return i128(hi, lo), int(s)


def dec(v):
    return Decimal(v[0]).scaleb(-v[1])


def fmt(v, s):
    """A value as (integer, scale) after rounding Decimal v to scale s; 'E1' past 38 digits."""
    q = v.quantize(Decimal(1).scaleb(-s), rounding=decimal.ROUND_HALF_UP)
    i = int(q.scaleb(s))
    return ('E%d' % OVF) if abs(i) >= LIMIT else (i, s)


def res(tok):
    return tok if tok.startswith('E') else val(tok)


def unhex(tok):
    return '' if tok == '-' else bytes.fromhex(tok).decode('latin-1')


def expect_add(a, b, sign=1):
    s = max(a[1], b[1])
    return fmt(dec(a) + sign * dec(b), s)


def expect_mul(a, b):
    return fmt(dec(a) * dec(b), min(38, a[1] + b[1]))


def expect_div(a, b):
    if b[0] == 0:
        return 'E%d' % DIVZ
    return fmt(dec(a) / dec(b), min(38, max(a[1], b[1]) + 6))


def expect_parse(text, s):
    m = TEXT_RE.match(text)
    if not m or (m.group(2) == '' and not m.group(3)):
        return 'E%d' % SYNTAX
    frac = m.group(3) or ''
    if s < 0:
        s = min(len(frac), 38)
    if s > 38:
        return 'E%d' % SCALE
    return fmt(Decimal(m.group(1) + (m.group(2) or '0') + '.' + (frac or '0')), s)


def money_fit(i):
    return i if I64[0] <= i <= I64[1] else 'E%d' % OVF


def money_round(d):
    return money_fit(int(d.quantize(Decimal(1), rounding=decimal.ROUND_HALF_UP)))


def text_of(i, s):
    sign = '-' if i < 0 else ''
    digits = str(abs(i)).rjust(s + 1, '0')
    return sign + (digits[:-s] + '.' + digits[-s:] if s else digits)


def check(f):
    op = f[0]
    if op in ('add', 'sub', 'mul', 'div'):
        a, b, got = val(f[1]), val(f[2]), res(f[3])
        want = {'add': lambda: expect_add(a, b), 'sub': lambda: expect_add(a, b, -1),
                'mul': lambda: expect_mul(a, b), 'div': lambda: expect_div(a, b)}[op]()
        return got, want
    if op == 'divs':
        a, b, s = val(f[1]), val(f[2]), int(f[3])
        if not 0 <= s <= 38:
            want = 'E%d' % SCALE
        elif b[0] == 0:
            want = 'E%d' % DIVZ
        else:
            want = fmt(dec(a) / dec(b), s)
        return res(f[4]), want
    if op == 'cmp':
        a, b = dec(val(f[1])), dec(val(f[2]))
        return int(f[3]), (a > b) - (a < b)
    if op in ('abs', 'neg'):
        a = val(f[1])
        return val(f[2]), (abs(a[0]) if op == 'abs' else -a[0], a[1])
    if op == 'round':
        a, s = val(f[1]), int(f[2])
        return res(f[3]), fmt(dec(a), s)
    if op == 'store':
        a, p, s = val(f[1]), int(f[2]), int(f[3])
        want = fmt(dec(a), s)
        if want != 'E1' and abs(want[0]) >= 10 ** p:
            want = 'E%d' % OVF
        return res(f[4]), want
    if op == 'load':
        hi, lo = f[1].split(':')
        i, s = i128(hi, lo), int(f[2])
        want = 'E%d' % SCALE if not 0 <= s <= 38 else ('E%d' % OVF if abs(i) >= LIMIT else (i, s))
        return res(f[3]), want
    if op == 'text':
        a = val(f[1])
        return unhex(f[2]), text_of(*a)
    if op == 'parse':
        return res(f[3]), expect_parse(unhex(f[1]), int(f[2]))
    if op == 'long':
        return val(f[2]), (int(f[1]), 0)
    if op == 'tolong':
        a = val(f[1])
        want = money_round(dec(a))
        return (f[2] if f[2].startswith('E') else int(f[2])), want
    if op == 'dbl':
        a = val(f[1])
        got, exact = float.fromhex(f[2]), float(dec(a))
        if abs(a[0]) < 2 ** 53 and a[1] <= 22:
            return got, exact   # correctly rounded
        return abs(got - exact) <= abs(exact) * 2 ** -50, True
    if op in ('madd', 'msub', 'mmuli', 'mdivi'):
        x, y = int(f[1]), int(f[2])
        got = f[3] if f[3].startswith('E') else int(f[3])
        if op == 'madd':
            return got, money_fit(x + y)
        if op == 'msub':
            return got, money_fit(x - y)
        if op == 'mmuli':
            return got, money_fit(x * y)
        return got, ('E%d' % DIVZ if y == 0 else money_round(Decimal(x) / Decimal(y)))
    if op in ('mmuln', 'mdivn'):
        x, d = int(f[1]), val(f[2])
        got = f[3] if f[3].startswith('E') else int(f[3])
        if op == 'mmuln':
            return got, money_round(Decimal(x) * dec(d))
        return got, ('E%d' % DIVZ if d[0] == 0 else money_round(Decimal(x) / dec(d)))
    if op == 'mparse':
        s = int(f[2])
        got = f[3] if f[3].startswith('E') else int(f[3])
        if not 0 <= s <= 18:
            return got, 'E%d' % SCALE
        want = expect_parse(unhex(f[1]), s)
        return got, (want if isinstance(want, str) else money_fit(want[0]))
    if op == 'mtext':
        return unhex(f[3]), text_of(int(f[1]), int(f[2]))
    raise ValueError('unknown operation ' + op)


def main():
    prog = sys.argv[1]
    out = subprocess.run([prog] + sys.argv[2:], check=True, stdout=subprocess.PIPE, text=True).stdout
    counts, bad, ended = {}, 0, False
    for line in out.splitlines():
        if line.startswith('#'):
            ended |= line == '# end'
            continue
        f = line.split()
        got, want = check(f)
        counts[f[0]] = counts.get(f[0], 0) + 1
        if got != want:
            bad += 1
            if bad <= 20:
                print('MISMATCH: %s\n    got  %r\n    want %r' % (line, got, want))
    if not ended:
        print('numeric_ops did not finish its output')
        bad += 1
    total = sum(counts.values())
    print('numeric oracle: %d operations checked against Python decimal, %d mismatches' % (total, bad))
    print('  ' + ', '.join('%s %d' % kv for kv in sorted(counts.items())))
    return 1 if bad or total < 1000 else 0


if __name__ == '__main__':
    sys.exit(main())
