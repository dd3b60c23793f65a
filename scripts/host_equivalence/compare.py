#!/usr/bin/env python3
"""Compares two builds for scripts/host_equivalence/run.sh.

  compare.py ptx DIR_A DIR_B [--rename REGEX REPLACEMENT]...
  compare.py trace TRACE_A TRACE_B [--rename REGEX REPLACEMENT]...

ptx: every .ptx file of DIR_A against the same file of DIR_B, as a set of
functions, ignoring what differs between two compilations of the same code
(comments, block-label numbering, the file-name hashes in internal symbols).
trace: the launch records of fake_cudart.cpp, line by line; argument bytes
that differ are listed per kernel and argument, with their byte offsets (a
difference confined to padding bytes is uninitialised padding, not a change).
--rename applies to B's mangled names (a kernel whose template arguments a
refactor renamed). Template-parameter references (T1_, T2_ ...) are ignored.
Exit status 1 when anything but argument bytes differs.
"""
import collections
import os
import re
import sys


def normalise_name(name, renames):
    for pattern, replacement in renames:
        name = re.sub(pattern, replacement, name)
    return re.sub(r'T\d*_', 'T_', name)


def ptx_functions(path, renames):
    text = open(path).read()
    text = re.sub(r'^//.*$', '', text, flags=re.M)
    text = re.sub(r'\$L__BB\d+_', '$L__BB_', text)
    text = re.sub(r'_GLOBAL__N__[0-9a-f]{8}_', '_GLOBAL__N__', text)
    text = re.sub(r'_GLOBAL__N__\w+?_cu_[0-9a-f]+_\d+', '_GLOBAL__N__', text)
    text = re.sub(r'_INTERNAL_\w+?_cu_[0-9a-f]+(_\d+)?', '_INTERNAL_', text)
    text = re.sub(r'_Z\w+', lambda m: normalise_name(m.group(0), renames), text)
    parts = re.split(r'\n(?=\t// \.globl|\.visible \.entry|\.weak \.entry|\.entry|\.func|\.visible \.func)', text)
    return sorted(p.strip() for p in parts if p.strip())


def compare_ptx(dir_a, dir_b, renames):
    changed = 0
    for name in sorted(os.listdir(dir_a)):
        if not name.endswith('.ptx'):
            continue
        path_b = os.path.join(dir_b, name)
        if not os.path.exists(path_b):
            print(f'{name}: missing in {dir_b}')
            changed += 1
            continue
        a = ptx_functions(os.path.join(dir_a, name), [])
        b = ptx_functions(path_b, renames)
        same = a == b
        changed += not same
        print(f'{name}: {"same" if same else "DIFFERENT"} ({len(a)} / {len(b)} functions)')
    return changed == 0


def compare_traces(path_a, path_b, renames):
    a = open(path_a).read().splitlines()
    b = open(path_b).read().splitlines()
    if len(a) != len(b):
        print(f'different lengths: {len(a)} and {len(b)} lines')
        return False
    structure = 0
    argument_bytes = collections.Counter()
    for line_a, line_b in zip(a, b):
        if line_a == line_b:
            continue
        if not (line_a.startswith('  launch ') and line_b.startswith('  launch ')):
            structure += 1
            if structure <= 5:
                print(f'differs:\n  {line_a[:240]}\n  {line_b[:240]}')
            continue
        head_a, args_a = line_a.split(' args ', 1)
        head_b, args_b = line_b.split(' args ', 1)
        name_a = head_a.split()[1]
        head_b = head_b.replace(head_b.split()[1], normalise_name(head_b.split()[1], renames))
        head_a = head_a.replace(name_a, normalise_name(name_a, []))
        if head_a != head_b:
            structure += 1
            if structure <= 5:
                print(f'differs:\n  {head_a[:240]}\n  {head_b[:240]}')
            continue
        for index, (x, y) in enumerate(zip(args_a.split(), args_b.split())):
            if x != y:
                offsets = sorted({i // 2 for i in range(0, min(len(x), len(y)), 2) if x[i:i + 2] != y[i:i + 2]})
                argument_bytes[(name_a[:70], index, x.split(']')[0] + ']', tuple(offsets[:8]))] += 1
    print(f'{len(a)} lines: {structure} differ in what is launched or returned')
    for (name, index, size, offsets), count in argument_bytes.most_common():
        print(f'{count} launches of {name}: argument {index} {size} differs at bytes {list(offsets)}')
    return structure == 0


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ('ptx', 'trace'):
        print(__doc__)
        return 2
    renames = []
    rest = sys.argv[4:]
    while rest:
        if rest[0] != '--rename' or len(rest) < 3:
            print(__doc__)
            return 2
        renames.append((rest[1], rest[2]))
        rest = rest[3:]
    same = compare_ptx if sys.argv[1] == 'ptx' else compare_traces
    return 0 if same(sys.argv[2], sys.argv[3], renames) else 1


if __name__ == '__main__':
    sys.exit(main())
