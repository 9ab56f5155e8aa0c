// fpr_check: an FPR and filter-memory regression check for CI. Builds a
// deterministic LSM tree under a filter policy, probes it with absent keys,
// and measures per level and in total the FPR, realized bits/key and filter
// bytes; records them as a JSON baseline, or compares them with one and
// exits non-zero on a regression. See docs/fpr_check.md.
//
//   fpr_check --filter_uri=monkey:7 --write_baseline=monkey_7.json
//   fpr_check --baseline=monkey_7.json            # the baseline's filter
//   fpr_check --options_file=OPTIONS-000007 --baseline=engine.json
//
// Exit status: 0 pass (or baseline written), 1 a regression, 2 bad input.
#include <gflags/gflags.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "monkey/filter_report.h"
#include "monkey/rocksdb_compat.h"
#include "monkey/tools/fpr_check/baseline.h"
#include "monkey/tools/fpr_check/engine_options.h"
#include "monkey/tools/fpr_check/tree.h"
#include "rocksdb/db.h"
#include "rocksdb/statistics.h"
#include "rocksdb/version.h"

DEFINE_string(filter_uri, "",
              "Filter policy to check, as FilterPolicy::CreateFromString "
              "takes it (bloomfilter:10, ribbonfilter:10, monkey:7, "
              "id=monkey;bits_per_key=7;shape=static). Default: the policy "
              "of --options_file/--options, else the baseline's.");
DEFINE_string(options_file, "",
              "A RocksDB OPTIONS file (e.g. your engine's): the tree uses its "
              "default column family's options");
DEFINE_string(options, "",
              "DB and column family options applied on top, as "
              "GetOptionsFromString takes them, e.g. "
              "'block_based_table_factory={block_size=16k;"
              "partition_filters=true;index_type=kTwoLevelIndexSearch}'");
DEFINE_string(write_baseline, "", "Write the measurement to this JSON file");
DEFINE_string(baseline, "", "Compare with this JSON baseline");
DEFINE_string(db, "",
              "Directory for the tree; must not exist (default: a temporary "
              "directory, removed at the end)");
DEFINE_uint64(seed, 301, "Seed of the keys and probes");
DEFINE_string(compaction_style, "level",
              "The tree: 'level' (a geometric tree, built level by level) or "
              "'universal' (the flushes, and RocksDB's universal compaction "
              "after each)");
DEFINE_uint64(num, 1000000,
              "Keys in the last level (leveled), in the tree (universal)");
DEFINE_int32(levels, 5, "Levels of the tree, L0 included: num_levels");
DEFINE_double(size_ratio, 10,
              "Leveled: keys of a level / keys of the level above");
DEFINE_int32(l0_files, 2, "Leveled: files in L0, each one step above L1");
DEFINE_int32(flushes, 24, "Universal: flushes of num / flushes keys each");
DEFINE_int32(compaction_trigger, 8,
             "Universal: level0_file_num_compaction_trigger, the sorted runs "
             "that start a compaction");
DEFINE_int32(universal_size_ratio, 1,
             "Universal: compaction_options_universal.size_ratio (percent)");
DEFINE_int32(min_merge_width, 2,
             "Universal: compaction_options_universal.min_merge_width");
DEFINE_int32(value_size, 16, "Value bytes; keys are 16 bytes");
DEFINE_uint64(probes, 200000, "Absent-key Gets");
DEFINE_double(sigmas, 4, "FPR tolerance, in binomial standard deviations");
DEFINE_double(bytes_tolerance, 0.01,
              "Filter bytes tolerance, as a fraction of the baseline's");

namespace monkey::fpr_check {
namespace {

constexpr int kRegression = 1;
constexpr int kBadInput = 2;

std::chrono::steady_clock::time_point g_start;

void Progress(const std::string& line) {
  fflush(stdout);  // results and progress may share one pipe
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - g_start)
          .count();
  fprintf(stderr, "fpr_check [%6.1f s] %s\n", seconds, line.c_str());
}

int Fail(const std::string& what, const ROCKSDB_NAMESPACE::Status& s) {
  fprintf(stderr, "fpr_check: %s: %s\n", what.c_str(), s.ToString().c_str());
  return kBadInput;
}

// The tree flags, or the baseline's values for those not given.
bool TreeFromFlags(const Result* baseline, TreeSpec* tree, std::string* error) {
  auto pick = [&](const char* flag, auto flag_value, auto baseline_value,
                  auto* out) {
    const bool given = !gflags::GetCommandLineFlagInfoOrDie(flag).is_default;
    if (baseline != nullptr && !given) {
      *out = baseline_value;
    } else {
      *out = flag_value;
      if (baseline != nullptr && flag_value != baseline_value) {
        *error += std::string(" --") + flag + " differs from the baseline's;";
      }
    }
  };
  const TreeSpec b = baseline ? baseline->tree : TreeSpec();
  pick("seed", FLAGS_seed, b.seed, &tree->seed);
  pick("compaction_style", FLAGS_compaction_style, b.compaction_style,
       &tree->compaction_style);
  pick("num", FLAGS_num, b.num, &tree->num);
  pick("levels", FLAGS_levels, b.levels, &tree->levels);
  pick("size_ratio", FLAGS_size_ratio, b.size_ratio, &tree->size_ratio);
  pick("l0_files", FLAGS_l0_files, b.l0_files, &tree->l0_files);
  pick("flushes", FLAGS_flushes, b.flushes, &tree->flushes);
  pick("compaction_trigger", FLAGS_compaction_trigger, b.compaction_trigger,
       &tree->compaction_trigger);
  pick("universal_size_ratio", FLAGS_universal_size_ratio,
       b.universal_size_ratio, &tree->universal_size_ratio);
  pick("min_merge_width", FLAGS_min_merge_width, b.min_merge_width,
       &tree->min_merge_width);
  pick("value_size", FLAGS_value_size, b.value_size, &tree->value_size);
  pick("probes", FLAGS_probes, b.probes, &tree->probes);
  *error += tree->Problems();
  return error->empty();
}

int Run() {
  g_start = std::chrono::steady_clock::now();
  Result baseline;
  if (!FLAGS_baseline.empty()) {
    const ROCKSDB_NAMESPACE::Status s = ReadBaseline(FLAGS_baseline, &baseline);
    if (!s.ok()) return Fail("--baseline", s);
  }
  TreeSpec tree;
  std::string error;
  if (!TreeFromFlags(FLAGS_baseline.empty() ? nullptr : &baseline, &tree,
                     &error)) {
    fprintf(stderr, "fpr_check: the tree cannot be built as asked:%s\n",
            error.c_str());
    return kBadInput;
  }

  EngineOptionsSpec engine;
  engine.options_file = FLAGS_options_file;
  engine.options_string = FLAGS_options;
  engine.filter_uri = FLAGS_filter_uri;
  engine.fallback_filter_uri = baseline.filter_uri;  // "" without a baseline
  ROCKSDB_NAMESPACE::Options options;
  std::string filter_uri;
  ROCKSDB_NAMESPACE::Status s =
      LoadEngineOptions(engine, &options, &filter_uri);
  if (!s.ok()) return Fail("options", s);
  if (!FLAGS_baseline.empty() && filter_uri != baseline.filter_uri) {
    Progress("note: checking '" + filter_uri + "' against a baseline of '" +
             baseline.filter_uri + "'");
  }
  MakeDeterministic(tree, &options);
  options.statistics = ROCKSDB_NAMESPACE::CreateDBStatistics();

  std::string path = FLAGS_db;
  bool remove_path = false;
  if (path.empty()) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "fpr_check_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return Fail("temporary directory",
                  ROCKSDB_NAMESPACE::Status::IOError(pattern));
    }
    path = pattern + "/db";
    remove_path = true;
  } else if (std::filesystem::exists(path)) {
    return Fail("--db", ROCKSDB_NAMESPACE::Status::InvalidArgument(
                            path + " exists; fpr_check builds a fresh tree"));
  }
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      if (!dir.empty()) std::filesystem::remove_all(dir);
    }
  } cleanup{remove_path ? std::filesystem::path(path).parent_path().string()
                        : ""};

  Progress("filter " + filter_uri + "; " +
           (tree.universal()
                ? "universal tree of " + std::to_string(tree.num) +
                      " keys in " + std::to_string(tree.levels) + " levels"
                : "tree of " + std::to_string(tree.levels) + " levels, " +
                      std::to_string(tree.num) + " keys in the last") +
           ", seed " + std::to_string(tree.seed) + ", in " + path);
  s = BuildTree(tree, options, path, Progress);
  if (!s.ok()) return Fail("building the tree", s);

  // Reopen: table readers then know each file's level for the counters.
  options.create_if_missing = false;
  options.error_if_exists = false;
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  s = OpenDB(options, path, &db);
  if (!s.ok()) return Fail("reopening the tree", s);
  Progress("probing " + std::to_string(tree.probes) + " absent keys");
  FilterStatsCollector collector;
  collector.Start(options.statistics);
  s = ProbeAbsent(tree, db.get(), &collector);
  if (!s.ok()) return Fail("probing", s);
  FilterReport report;
  s = BuildFilterReport(db.get(), collector, "fpr_check", &report);
  if (!s.ok()) return Fail("filter report", s);
  db.reset();
  fputs(report.ToTable().c_str(), stdout);
  puts(report.ToJsonLine().c_str());

  Result measured = FromReport(report, filter_uri, tree);
  measured.rocksdb_version = std::to_string(ROCKSDB_MAJOR) + "." +
                             std::to_string(ROCKSDB_MINOR) + "." +
                             std::to_string(ROCKSDB_PATCH);
  if (!FLAGS_write_baseline.empty()) {
    s = WriteBaseline(FLAGS_write_baseline, measured);
    if (!s.ok()) return Fail("--write_baseline", s);
    Progress("baseline written to " + FLAGS_write_baseline);
  }
  int status = 0;
  if (!FLAGS_baseline.empty()) {
    Tolerance tolerance;
    tolerance.sigmas = FLAGS_sigmas;
    tolerance.bytes_fraction = FLAGS_bytes_tolerance;
    const Comparison cmp = Compare(baseline, measured, tolerance);
    printf("\nBaseline %s: filter '%s', RocksDB %s\n", FLAGS_baseline.c_str(),
           baseline.filter_uri.c_str(), baseline.rocksdb_version.c_str());
    fputs(cmp.ToTable().c_str(), stdout);
    if (cmp.ok()) {
      printf("fpr_check: PASS\n");
    } else {
      printf("fpr_check: FAIL: '%s' does not match the baseline\n",
             filter_uri.c_str());
      status = kRegression;
    }
  }
  Progress("done");
  return status;
}

}  // namespace
}  // namespace monkey::fpr_check

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "fpr_check --filter_uri=URI [--write_baseline=FILE | --baseline=FILE]\n"
      "Builds a deterministic LSM tree under a filter policy, measures FPR, "
      "bits/key and filter bytes per level, and records or checks them.");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  if (argc > 1) {
    fprintf(stderr, "fpr_check: unexpected argument '%s'\n", argv[1]);
    return 2;
  }
  if (FLAGS_write_baseline.empty() && FLAGS_baseline.empty()) {
    fprintf(stderr,
            "fpr_check: give --write_baseline=FILE or --baseline=FILE (or "
            "both); see --help\n");
    return 2;
  }
  return monkey::fpr_check::Run();
}
