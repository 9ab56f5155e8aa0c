# Before the fix: planner at 69cb356 (grow_tree with the new JSON keys, uncommitted at the time)
cd /work/main
R=bench/results/20261203-69cb356-llf-unfiltered
COMMON="--filter_uris=id=monkey;bits_per_key=8;last_level_filter=false --write_buffer_size=1048576 --max_bytes_for_level_base=4194304 --target_file_size_base=1048576"
nice -n 10 build/grow_tree --db=/tmp/llf_grow_before --dynamic_levels=false,true $COMMON --steps=250000,500000,1000000,2000000,3000000 --json=$R/${TAG}steps.json > $R/${TAG}steps.txt 2> $R/${TAG}steps.stderr
nice -n 10 build/grow_tree --db=/tmp/llf_grow_before --dynamic_levels=false $COMMON --steps=300000,350000,400000,450000,500000,550000,600000,650000,700000,800000,900000,1000000 --json=$R/${TAG}fine.json > $R/${TAG}fine.txt 2> $R/${TAG}fine.stderr
