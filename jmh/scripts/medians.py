#!/usr/bin/env python3
"""Summarises the lines jmh/scripts/alternate.sh wrote: per JDK, part, arguments, band and variant, the median of each
figure over the rounds, with the lowest and the highest in brackets, and the steal ticks of each round.

    python3 jmh/scripts/medians.py OUT [OUT ...]
"""
import collections
import re
import statistics
import sys

FIELDS = ['p50us', 'p99us', 'p999us', 'maxUs', 'cpuPct', 'cpuUsPerTimer', 'tasksPerSec', 'constructUs', 'firstCallUs',
          'firstStartUs', 'farCallUs', 'scheduleMs']
rows = collections.defaultdict(list)
for path in sys.argv[1:]:
    for line in open(path):
        fields = dict(re.findall(r'(\w+)=(\[[^\]]*\]|\S+)', line))
        part = line.split('RESULT ')[1].split()[0]
        rows[(fields['jdk'], part, fields['args'], fields.get('band', 'all'), fields['variant'])].append(fields)
group = None
for key in sorted(rows, key=lambda k: k[:4]):
    if key[:4] != group:
        group = key[:4]
        print('\n## JDK %s, %s %s, band %s' % group)
    results = rows[key]
    cells = []
    for f in FIELDS:
        values = [float(r[f]) for r in results if f in r]
        if values:
            cells.append('%s %.4g [%.3g-%.3g]' % (f, statistics.median(values), min(values), max(values)))
    print('  %-12s n=%d  %s  steal=%s' % (key[4], len(results), '  '.join(cells), ','.join(r['steal'] for r in results)))
