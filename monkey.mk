# RocksDB plugin description (ROCKSDB_PLUGINS=monkey). RocksDB's Makefile
# includes this file; its CMake and ours read it with a regular expression,
# so keep exactly one NAME = value per line. Paths in CXXFLAGS are relative
# to the RocksDB tree: our includes start with "monkey/", found in plugin/.
monkey_SOURCES = util/filter_fpr_model.cc util/filter_fpr_spread.cc util/fpr_hull.cc util/monkey_bpk.cc util/monkey_memory.cc util/key_range.cc util/sst_file_name.cc util/live_shape.cc util/live_tree.cc util/shape_drift.cc util/level_sizing.cc util/price_search.cc util/live_plan.cc util/tiered_plan.cc util/tiered_shape.cc util/tiered_job.cc util/plan_format.cc util/cache_cost.cc util/cache_plan.cc util/key_permutation.cc table/monkey_filter_policy.cc table/monkey_options.cc table/monkey_plans.cc table/monkey_registry.cc table/install.cc table/shape_listener.cc table/key_range_collector.cc table/strict_options.cc table/strict_string.cc report/filter_stats_collector.cc report/filter_report.cc report/filter_report_format.cc report/db_bench_support.cc
monkey_HEADERS = include/monkey/monkey_filter_policy.h include/monkey/plan_choices.h include/monkey/install.h include/monkey/strict_options.h include/monkey/filter_report.h include/monkey/rocksdb_compat.h
monkey_FUNC = RegisterMonkeyFilterPolicy
monkey_CXXFLAGS = -Iplugin -Iplugin/monkey/include
