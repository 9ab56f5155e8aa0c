# Compares two grow_tree --matrix logs cell by cell: cells within bounds,
# settled ratios (mean, worst) per memtable row and load, and the cells out
# in either run. Usage: compare.py BASE.log NEW.log
import re, sys, statistics
def parse(path):
    cells = {}
    for line in open(path):
        if not line.startswith('mem='): continue
        name = line[:44].strip()
        rest = line[44:].split()
        # keys levels... bits sumfpr ratio worst budget midload verdict
        m = re.search(r'\s(\d+\.\d+)\s+(\d+\.\d+)%\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)%\s+(\d+\.\d+)%\s+(ok|FAIL[^(]*)', line)
        if not m: continue
        cells[name] = dict(bits=float(m[1]), fpr=float(m[2]), settled=float(m[3]), worst=float(m[4]),
                           budget=float(m[5]), midload=float(m[6]), verdict=m[7].strip())
    return cells
a, b = parse(sys.argv[1]), parse(sys.argv[2])
common = [k for k in a if k in b]
print(f"cells: base {len(a)}, new {len(b)}, both {len(common)}")
for label, d in (('base', a), ('new', b)):
    c = [d[k] for k in common]
    ok = sum(x['verdict'] == 'ok' for x in c)
    print(f"{label}: within bounds {ok}/{len(c)}; mean settled {statistics.mean(x['settled'] for x in c):.4f}; "
          f"worst settled {max(x['settled'] for x in c):.3f}; worst step {max(x['worst'] for x in c):.3f}; "
          f"worst settled budget {max(x['budget'] for x in c):.1f}%; mean bits {statistics.mean(x['bits'] for x in c):.3f}")
    for mem in ('1M', '2M'):
        cc = [d[k] for k in common if k.startswith('mem='+mem)]
        if cc:
            print(f"   {mem}: {sum(x['verdict']=='ok' for x in cc)}/{len(cc)} ok, mean settled {statistics.mean(x['settled'] for x in cc):.4f}")
    for load in ('fast', 'writers4', 'sequential'):
        cc = [d[k] for k in common if k.endswith(load)]
        if cc:
            print(f"   {load}: {sum(x['verdict']=='ok' for x in cc)}/{len(cc)} ok, mean settled {statistics.mean(x['settled'] for x in cc):.4f}, worst {max(x['settled'] for x in cc):.3f}")
print("cells out in either:")
for k in common:
    if a[k]['verdict'] != 'ok' or b[k]['verdict'] != 'ok':
        print(f"  {k:44s} base {a[k]['settled']:.3f} {a[k]['verdict']:28s} new {b[k]['settled']:.3f} {b[k]['verdict']}")
