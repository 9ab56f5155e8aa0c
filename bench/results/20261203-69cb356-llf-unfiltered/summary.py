# Prints per step: unfiltered files per level, the cost of files without a
# filter above the deepest level at FPR 1 (the metric), the same
# counted only above a deeper run covering the key, measured data blocks per
# absent lookup, and filter bits per key of the tree.
import json, os
R = os.path.dirname(os.path.abspath(__file__))
for tag in ['before_steps', 'after_steps', 'before_fine', 'after_fine']:
    print(tag)
    for s in json.load(open(f'{R}/{tag}.json')):
        print(' dyn=%d %8d %-14s unfiltered/files L0-L3 %-26s sum_fpr %.4f '
              'unfiltered_upper@FPR1 %.3f above_deeper_run %.3f '
              'data_blocks/lookup %.3f filter_bits/key_of_tree %.2f' % (
                  s['dynamic_levels'], s['keys'], s['levels'],
                  '%s/%s' % (s['level_unfiltered_files'][:4], s['level_files'][:4]),
                  s['sum_fpr'], s['unfiltered_upper_fp_per_lookup'],
                  s['unfiltered_above_bottom_fp_per_lookup'],
                  s['data_blocks_per_lookup'], 8 * s['filter_bytes'] / s['entries']))
