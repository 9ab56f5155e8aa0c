# The fixed-vs-Monkey filter comparison behind tools/compare.sh, in parts:
#   specs    presets, configuration specs and the db_bench command lines
#   runner   runs db_bench for every size, configuration and round
#   parse    db_bench's output: benchmark lines, histograms, the
#            filter_report_json lines and Monkey's plan table
#   figures  the scalar and per-level figures of one result
#   tables   the side-by-side table and the build comparison
#   checks   the verdicts: PASS, EXPECTED (a bar the model puts out of
#            reach on the tree measured) and FAIL
#   spread   throughput over the rounds: median, min-max, and ratios
#   outputs  CSV and JSON
#   plots    gnuplot plots
#   console  progress lines and uptime
#   cli      the command line (bench/compare.py)
#   depth    the depth sweep (bench/depth_sweep.py)
#   frontier the sum FPR-memory frontier (bench/frontier.py)
# Python's standard library only; plots by gnuplot.
