// What one live-shape update and one re-plan cost, against the size of the
// tree (issue 29): Google Benchmark (Debian's libbenchmark-dev), built with
// -DMONKEY_BUILD_BENCHMARKS=ON, never run by ctest.
//
//   build/bench/live_plan_bench [--benchmark_format=json]
//
// The tree is synthetic: N live files (10, 100, 1,000, 10,000) of one
// column family under dynamic level sizing, T = 10, the deep preset's file
// sizes (64 KiB, ~565 keys of 116 B): an L0 backlog of N/10 files (at least
// 4, at most 24; each a flush over the whole key space) and the rest over
// L1-L6, nine in ten of each remainder a level deeper, every file's filter
// known. One flush and one compaction (every L0 file and one base-level file
// into the base level) are in flight: the shape a listener projects when a
// compaction begins. Benchmarks, each over the same N:
//   BM_ProjectLiveShape      ProjectLiveShape (util/live_shape.h)
//   BM_PlanLiveTree          PlanLiveTree on the projected shape
//                            (util/live_plan.h)
//   BM_PlanLiveTreeForCache  the same with objective=io, through a block
//                            cache of 5, 20 or 100% of the filter bytes
//   BM_ProjectAndPlan        (a) what a listener's refresh computes after
//                            GetLiveFilesMetaData: the level sizing from the
//                            files (as ShapeListener's SizingOf), then
//                            ProjectLiveShape and PlanLiveTree
//   BM_PolicyUpdateLiveShape (b) the same through the policy:
//                            sizing, ProjectLiveShape and
//                            MonkeyFilterPolicy::UpdateLiveShape (plan and
//                            publish under the policy's mutex)
//   BM_TreeChangesAfterCompaction
//                            (d) a compaction's bookkeeping in LiveTree and
//                            the planner's LiveTree::TakeChanges after it:
//                            all the planner does under the listener's mutex
//   BM_TreeFilesAfterCompaction
//                            (d') the same with a copy of every file, as the
//                            planner took before it kept its own
//   BM_PlannerPass           (e) the planner's whole pass off the jobs'
//                            threads: its copy of the files updated, then
//                            as (b)
//   BM_ListenerCompaction    (c) a compaction's callbacks, per event
// The second argument is the objective: 0 the budget (objective=fpr, the
// default), 1 objective=memory. GetLiveFilesMetaData itself (RocksDB,
// under the DB mutex) and the listener's bookkeeping are not timed here.
// The context (--benchmark_format=json: "context") carries the first plan of
// the process, which builds the FPR model's hull (FirstPlanMicros).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "monkey/install.h"
#include "monkey/monkey_filter_policy.h"
#include "monkey/table/shape_listener.h"
#include "monkey/util/level_sizing.h"
#include "monkey/util/live_plan.h"
#include "monkey/util/live_shape.h"
#include "monkey/util/live_tree.h"
#include "rocksdb/db.h"
#include "rocksdb/utilities/stackable_db.h"

namespace monkey {

// The policy's private UpdateLiveShape with the level sizing, as
// ShapeListener calls it (the tests' peer, tests/table/policy_peer.h, has
// the overload without). This program's own peer: one definition in it.
class MonkeyFilterPolicyPeer {
 public:
  static void UpdateLiveShape(const MonkeyFilterPolicy& policy,
                              const std::string& column_family,
                              const std::vector<LiveLevel>& levels,
                              const LevelSizing& sizing) {
    policy.UpdateLiveShape(column_family, levels, sizing);
  }
};

namespace {

constexpr double kKeySpace = 1e12;
constexpr double kFileEntries = 565;    // 64 KiB files of 116-byte entries
constexpr double kFlushEntries = 1130;  // a 128 KiB memtable
constexpr double kBytesPerEntry = 116;
constexpr int kNumLevels = 7;
constexpr double kBaseLevelBytes = 524288;  // the deep preset's

std::string Key(double k) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%016" PRIu64,
                static_cast<uint64_t>(std::max(0.0, k)));
  return buf;
}

struct Tree {
  std::vector<LiveFile> files;
  std::vector<LiveJob> jobs;
  int l0_files = 0;
  int levels = 0;  // non-empty levels below L0
};

// The bits the files of `level` were built at: more above, as a plan gives.
double BuiltBits(int level) {
  return level == 0 ? 14.0 : std::max(9.0, 16.0 - level);
}

Tree MakeTree(int n) {
  Tree t;
  t.l0_files = std::clamp(n / 10, 4, 24);
  uint64_t number = 1;
  auto add = [&](int level, double entries, double smallest, double largest) {
    LiveFile f;
    f.number = number++;
    f.level = level;
    f.entries = entries;
    f.bytes = entries * kBytesPerEntry;
    f.smallest = Key(smallest);
    f.largest = Key(largest);
    f.flushed = level == 0;
    f.filter_known = true;
    f.filter_entries = entries;
    f.filter_bits = entries * BuiltBits(level);
    t.files.push_back(f);
  };
  // Below L0, deepest first: nine in ten of what is left a level deeper.
  int left = n - t.l0_files;
  int base = kNumLevels - 1;
  for (int level = kNumLevels - 1; level >= 1 && left > 0; --level) {
    const int files =
        level == 1 ? left
                   : std::max(1, static_cast<int>(std::lround(left * 0.9)));
    const double width = kKeySpace / files;
    for (int i = 0; i < files; ++i) {
      add(level, kFileEntries, i * width, (i + 1) * width - 1);
    }
    left -= files;
    base = level;
    ++t.levels;
  }
  // The L0 backlog: flushes of random keys, each over nearly all the space.
  for (int i = 0; i < t.l0_files; ++i) {
    add(0, kFlushEntries, 1000.0 * (i + 1), kKeySpace - 1000.0 * (i + 1));
  }
  // In flight: one flush, and every L0 file with one base-level file into
  // the base level.
  LiveJob flush;
  flush.flush = true;
  flush.flush_entries = kFlushEntries;
  t.jobs.push_back(flush);
  LiveJob compaction;
  compaction.output_level = base;
  for (const LiveFile& f : t.files) {
    if (f.level == 0) compaction.input_files.push_back(f.number);
  }
  for (const LiveFile& f : t.files) {
    if (f.level == base) {
      compaction.input_files.push_back(f.number);
      break;
    }
  }
  t.jobs.push_back(compaction);
  return t;
}

// ShapeListener's SizingOf: the options' targets in keys at the files'
// bytes per key.
LevelSizing SizingOf(const std::vector<LiveFile>& files) {
  double bytes = 0, entries = 0;
  for (const LiveFile& f : files) {
    if (f.entries > 0 && f.bytes > 0) {
      bytes += f.bytes;
      entries += f.entries;
    }
  }
  return SizingInEntries(/*dynamic=*/true, kBaseLevelBytes, 10, kNumLevels,
                         bytes, entries);
}

LivePlanOptions PlanOptions(int objective, const LevelSizing& sizing) {
  LivePlanOptions options;
  options.bits_per_key = 10;
  options.objective = objective == 1 ? Objective::kMemory : Objective::kSumFpr;
  options.sizing = sizing;
  return options;
}

void Describe(benchmark::State& state, const Tree& t) {
  state.counters["files"] = static_cast<double>(t.files.size());
  state.counters["l0_files"] = t.l0_files;
  state.counters["levels"] = t.levels + 1;
}

void BM_ProjectLiveShape(benchmark::State& state) {
  const Tree t = MakeTree(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    std::vector<LiveLevel> shape = ProjectLiveShape(t.files, t.jobs);
    benchmark::DoNotOptimize(shape.data());
  }
  Describe(state, t);
}

// PlanLiveTree of `t`'s projected shape under `options`, timed.
void TimePlans(benchmark::State& state, const Tree& t,
               const std::vector<LiveLevel>& shape,
               const LivePlanOptions& options) {
  for (auto _ : state) {
    LivePlan plan;
    const bool ok = PlanLiveTree(shape, options, &plan);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(plan.plan.levels.data());
  }
  Describe(state, t);
}

void BM_PlanLiveTree(benchmark::State& state) {
  const Tree t = MakeTree(static_cast<int>(state.range(0)));
  const std::vector<LiveLevel> shape = ProjectLiveShape(t.files, t.jobs);
  TimePlans(state, t, shape,
            PlanOptions(static_cast<int>(state.range(1)), SizingOf(t.files)));
}

// objective=io: PlanLiveTree through a block cache of the second argument's
// percent of the tree's filter bytes at 10 bits a key, filters in 4 KiB
// partitions (PlanBitsForCache, util/cache_plan.h).
void BM_PlanLiveTreeForCache(benchmark::State& state) {
  const Tree t = MakeTree(static_cast<int>(state.range(0)));
  const std::vector<LiveLevel> shape = ProjectLiveShape(t.files, t.jobs);
  LivePlanOptions options = PlanOptions(0, SizingOf(t.files));
  options.objective = Objective::kIo;
  double entries = 0;
  for (const LiveLevel& level : shape) entries += level.entries;
  options.cache.cache_bytes =
      static_cast<double>(state.range(1)) / 100 * entries * 10 / 8;
  options.cache.partition_bytes = 4096;
  TimePlans(state, t, shape, options);
}

void BM_ProjectAndPlan(benchmark::State& state) {
  const Tree t = MakeTree(static_cast<int>(state.range(0)));
  const int objective = static_cast<int>(state.range(1));
  for (auto _ : state) {
    const LevelSizing sizing = SizingOf(t.files);
    std::vector<LiveLevel> shape = ProjectLiveShape(t.files, t.jobs);
    LivePlan plan;
    const bool ok = PlanLiveTree(shape, PlanOptions(objective, sizing), &plan);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(plan.plan.levels.data());
  }
  Describe(state, t);
}

// A monkey:10 policy for the benchmark's second argument (0 the budget, 1
// objective=memory); nullptr, the benchmark skipped, if it cannot be made.
std::shared_ptr<const MonkeyFilterPolicy> PolicyFor(benchmark::State& state) {
  MonkeyOptions options;
  options.bits_per_key = 10;
  if (state.range(1) == 1) {
    options.objective = MonkeyOptions::Objective::kMemory;
  }
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> policy;
  const ROCKSDB_NAMESPACE::Status s =
      MonkeyFilterPolicy::Create(options, &policy);
  const auto* cast =
      s.ok() ? policy->CheckedCast<MonkeyFilterPolicy>() : nullptr;
  if (cast == nullptr) {
    state.SkipWithError(s.ok() ? "not a MonkeyFilterPolicy"
                               : s.ToString().c_str());
    return nullptr;
  }
  return std::shared_ptr<const MonkeyFilterPolicy>(policy, cast);
}

void BM_PolicyUpdateLiveShape(benchmark::State& state) {
  const Tree t = MakeTree(static_cast<int>(state.range(0)));
  const std::shared_ptr<const MonkeyFilterPolicy> policy = PolicyFor(state);
  if (policy == nullptr) return;
  const MonkeyFilterPolicy& monkey = *policy;
  for (auto _ : state) {
    const LevelSizing sizing = SizingOf(t.files);
    const std::vector<LiveLevel> shape = ProjectLiveShape(t.files, t.jobs);
    MonkeyFilterPolicyPeer::UpdateLiveShape(monkey, "default", shape, sizing);
  }
  // The plan it published, so that nothing above was for nothing.
  if (monkey.MillibitsForLevel(0, kNumLevels) <= 0) {
    state.SkipWithError("no filter planned for L0");
  }
  Describe(state, t);
}

// A compaction of `inputs` files of the deepest level into as many new
// ones there, on `tree`, as OnTableFileCreated and OnCompactionCompleted
// record it: `deepest` holds that level's files, oldest first, and takes
// the outputs.
void CompactDeepest(int job, int inputs, std::vector<LiveFile>* deepest,
                    uint64_t* next, LiveTree* tree) {
  std::vector<uint64_t> numbers;
  std::vector<std::pair<uint64_t, int>> outputs;
  for (int i = 0; i < inputs; ++i) {
    LiveFile& in = (*deepest)[i % deepest->size()];
    numbers.push_back(in.number);
    LiveFile out = in;
    out.number = (*next)++;
    outputs.push_back({out.number, in.level});
    tree->Created(job, out, true);
    in = out;
  }
  tree->CompactionCompleted(job, numbers, outputs, true);
  for (uint64_t n : numbers) tree->Deleted(n);
}

std::vector<LiveFile> DeepestOf(const std::vector<LiveFile>& files) {
  int level = 0;
  for (const LiveFile& f : files) level = std::max(level, f.level);
  std::vector<LiveFile> deepest;
  for (const LiveFile& f : files) {
    if (f.level == level) deepest.push_back(f);
  }
  return deepest;
}

// (d) What the planner does under the listener's mutex for a plan after
// one compaction of `inputs` files: LiveTree::TakeChanges, the files that
// compaction changed (util/live_tree.h). Timed with the compaction's own
// bookkeeping, which runs on the job's thread under the same mutex.
void BM_TreeChangesAfterCompaction(benchmark::State& state) {
  const Tree t = MakeTree(static_cast<int>(state.range(0)));
  const int inputs = static_cast<int>(state.range(1));
  LiveTree tree;
  tree.Reset(t.files);
  tree.TakeChanges();
  std::vector<LiveFile> deepest = DeepestOf(t.files);
  uint64_t next = 1000000;
  int job = 0;
  size_t taken = 0;
  for (auto _ : state) {
    CompactDeepest(++job, inputs, &deepest, &next, &tree);
    LiveTree::Changes changes = tree.TakeChanges();
    taken += changes.put.size() + changes.erased.size();
    benchmark::DoNotOptimize(changes.put.data());
  }
  state.counters["files_taken"] = benchmark::Counter(
      static_cast<double>(taken), benchmark::Counter::kAvgIterations);
  Describe(state, t);
}

// (d') The same with a copy of every live file (LiveTree::Files), as the
// planner took under the mutex before it kept a copy of its own.
void BM_TreeFilesAfterCompaction(benchmark::State& state) {
  const Tree t = MakeTree(static_cast<int>(state.range(0)));
  const int inputs = static_cast<int>(state.range(1));
  LiveTree tree;
  tree.Reset(t.files);
  std::vector<LiveFile> deepest = DeepestOf(t.files);
  uint64_t next = 1000000;
  int job = 0;
  for (auto _ : state) {
    CompactDeepest(++job, inputs, &deepest, &next, &tree);
    std::vector<LiveFile> files = tree.Files();
    benchmark::DoNotOptimize(files.data());
  }
  Describe(state, t);
}

// (e) A planner's whole pass off the jobs' threads, for a plan after one
// compaction of 10 files: the changes into its copy (LiveFilesMirror), the
// files out of it, the level sizing, ProjectLiveShape and the policy's
// UpdateLiveShape (ShapeListener::Plan without the mutex).
void BM_PlannerPass(benchmark::State& state) {
  const Tree t = MakeTree(static_cast<int>(state.range(0)));
  const std::shared_ptr<const MonkeyFilterPolicy> policy = PolicyFor(state);
  if (policy == nullptr) return;
  const MonkeyFilterPolicy& monkey = *policy;
  LiveTree tree;
  tree.Reset(t.files);
  LiveFilesMirror mirror;
  mirror.Apply(tree.TakeChanges());
  std::vector<LiveFile> deepest = DeepestOf(t.files);
  uint64_t next = 1000000;
  int job = 0;
  for (auto _ : state) {
    state.PauseTiming();
    CompactDeepest(++job, 10, &deepest, &next, &tree);
    LiveTree::Changes changes = tree.TakeChanges();
    state.ResumeTiming();
    mirror.Apply(std::move(changes));
    const std::vector<LiveFile> files = mirror.Files();
    const LevelSizing sizing = SizingOf(files);
    const std::vector<LiveLevel> shape = ProjectLiveShape(files, t.jobs);
    MonkeyFilterPolicyPeer::UpdateLiveShape(monkey, "default", shape, sizing);
  }
  Describe(state, t);
}

// A DB whose live files are the synthetic tree's: what ShapeListener's one
// full read finds. Everything else is a real, empty DB's.
class SyntheticFilesDB : public ROCKSDB_NAMESPACE::StackableDB {
 public:
  SyntheticFilesDB(ROCKSDB_NAMESPACE::DB* db,
                   const std::vector<LiveFile>& files)
      : StackableDB(db) {
    for (const LiveFile& f : files) {
      ROCKSDB_NAMESPACE::LiveFileMetaData m;
      m.file_number = f.number;
      m.name = "/" + std::to_string(f.number) + ".sst";
      m.column_family_name = ROCKSDB_NAMESPACE::kDefaultColumnFamilyName;
      m.level = f.level;
      m.num_entries = static_cast<uint64_t>(f.entries);
      m.size = static_cast<uint64_t>(f.bytes);
      m.smallestkey = f.smallest;
      m.largestkey = f.largest;
      files_.push_back(m);
    }
  }
  void GetLiveFilesMetaData(
      std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData>* files) override {
    *files = files_;
  }

 private:
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files_;
};

// (c) What a compaction leaves on its own thread, through the listener's
// callbacks: OnCompactionBegin, then per output OnTableFileCreated (its
// keys, filter and key range from the table properties), then
// OnCompactionCompleted -- the bookkeeping of util/live_tree.h and
// util/shape_drift.h under the listener's mutex, and a wake-up of the
// planner when the tree has drifted. The tree is read once, before timing.
// The compaction takes `inputs` files of the deepest level and writes as
// many new ones there, so the tree keeps its size. Reported per event
// (three callbacks plus one per output).
void BM_ListenerCompaction(benchmark::State& state) {
  const Tree t = MakeTree(static_cast<int>(state.range(0)));
  const int inputs = static_cast<int>(state.range(1));
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> policy;
  MonkeyOptions options;
  options.bits_per_key = 10;
  if (!MonkeyFilterPolicy::Create(options, &policy).ok()) {
    state.SkipWithError("no policy");
    return;
  }
  const auto* monkey = policy->CheckedCast<MonkeyFilterPolicy>();
  ROCKSDB_NAMESPACE::Options db_options;
  db_options.create_if_missing = true;
  const std::string path = "/tmp/live_plan_bench_" + std::to_string(getpid());
  ROCKSDB_NAMESPACE::DB* raw = nullptr;
  if (!ROCKSDB_NAMESPACE::DB::Open(db_options, path, &raw).ok()) {
    state.SkipWithError("cannot open a DB");
    return;
  }
  {
    SyntheticFilesDB db(raw, t.files);  // owns raw
    ShapeListener listener(
        std::shared_ptr<const MonkeyFilterPolicy>(policy, monkey));
    listener.Refresh(&db);
    // The deepest level's files, oldest first: each compaction replaces
    // the first `inputs` of them.
    std::vector<LiveFile> deepest;
    int level = 0;
    for (const LiveFile& f : t.files) level = std::max(level, f.level);
    for (const LiveFile& f : t.files) {
      if (f.level == level) deepest.push_back(f);
    }
    uint64_t next = 1000000;
    int job = 0;
    for (auto _ : state) {
      ROCKSDB_NAMESPACE::CompactionJobInfo info;
      info.job_id = ++job;
      info.cf_name = ROCKSDB_NAMESPACE::kDefaultColumnFamilyName;
      info.output_level = level;
      info.base_input_level = level;
      std::vector<LiveFile> outputs;
      for (int i = 0; i < inputs; ++i) {
        const LiveFile& in = deepest[i % deepest.size()];
        const std::string name = "/" + std::to_string(in.number) + ".sst";
        info.input_files.push_back(name);
        info.input_file_infos.push_back({1, in.number, 0});
        auto props = std::make_shared<ROCKSDB_NAMESPACE::TableProperties>();
        props->num_entries = static_cast<uint64_t>(in.entries);
        info.table_properties[name] = props;
        LiveFile out = in;
        out.number = next++;
        outputs.push_back(out);
      }
      listener.OnCompactionBegin(&db, info);
      for (const LiveFile& out : outputs) {
        ROCKSDB_NAMESPACE::TableFileCreationInfo created;
        created.file_path = "/" + std::to_string(out.number) + ".sst";
        created.cf_name = info.cf_name;
        created.file_size = static_cast<uint64_t>(out.bytes);
        created.table_properties.num_entries =
            static_cast<uint64_t>(out.entries);
        created.table_properties.num_filter_entries =
            static_cast<uint64_t>(out.entries);
        created.table_properties.filter_size =
            static_cast<uint64_t>(out.filter_bits / 8);
        created.table_properties
            .user_collected_properties["monkey.smallest_key"] = out.smallest;
        created.table_properties
            .user_collected_properties["monkey.largest_key"] = out.largest;
        created.reason =
            ROCKSDB_NAMESPACE::TableFileCreationReason::kCompaction;
        listener.OnTableFileCreated(created);
        info.output_file_infos.push_back({level, out.number, 0});
      }
      listener.OnCompactionCompleted(&db, info);
      // The next compaction takes the files this one wrote.
      for (int i = 0; i < inputs; ++i) {
        deepest[i % deepest.size()] = outputs[i];
      }
    }
    listener.WaitForPlans();
    state.counters["full_reads"] = static_cast<double>(listener.full_reads());
    state.counters["plans"] = static_cast<double>(listener.plans());
    state.counters["events"] = benchmark::Counter(
        static_cast<double>(state.iterations() * (2 + inputs)),
        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    Describe(state, t);
  }
  ROCKSDB_NAMESPACE::DestroyDB(path, db_options);
}

void Sizes(benchmark::internal::Benchmark* b) {
  for (int objective : {0, 1}) {
    for (int files : {10, 100, 1000, 10000}) b->Args({files, objective});
  }
  b->ArgNames({"files", "objective"})->Unit(benchmark::kMicrosecond);
}

}  // namespace

BENCHMARK(BM_ProjectLiveShape)
    ->ArgName("files")
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlanLiveTree)->Apply(Sizes);
BENCHMARK(BM_PlanLiveTreeForCache)
    ->ArgNames({"files", "cache_pct"})
    ->ArgsProduct({{10, 100, 1000, 10000}, {5, 20, 100}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProjectAndPlan)->Apply(Sizes);
BENCHMARK(BM_PolicyUpdateLiveShape)->Apply(Sizes);
BENCHMARK(BM_TreeChangesAfterCompaction)
    ->ArgNames({"files", "inputs"})
    ->ArgsProduct({{10, 100, 1000, 10000}, {1, 10}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TreeFilesAfterCompaction)
    ->ArgNames({"files", "inputs"})
    ->ArgsProduct({{10, 100, 1000, 10000}, {1, 10}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlannerPass)->Apply(Sizes);
BENCHMARK(BM_ListenerCompaction)
    ->ArgNames({"files", "inputs"})
    ->ArgsProduct({{10, 100, 1000, 10000}, {1, 10}})
    ->Unit(benchmark::kMicrosecond);

// The first plan of a process builds the FPR model's convex hull, once per
// filter model (util/fpr_hull.h's HullFor, cached for the process): its
// microseconds, planned before any benchmark runs so that none of them pays
// it. A policy's first refresh pays it on a job's thread.
double FirstPlanMicros() {
  const Tree t = MakeTree(1000);
  const std::vector<LiveLevel> shape = ProjectLiveShape(t.files, t.jobs);
  const auto start = std::chrono::steady_clock::now();
  LivePlan plan;
  PlanLiveTree(shape, PlanOptions(0, SizingOf(t.files)), &plan);
  const auto end = std::chrono::steady_clock::now();
  PlanLiveTree(shape, PlanOptions(1, SizingOf(t.files)), &plan);
  return std::chrono::duration<double, std::micro>(end - start).count();
}

}  // namespace monkey

int main(int argc, char** argv) {
  char first[32];
  std::snprintf(first, sizeof(first), "%.0f", monkey::FirstPlanMicros());
  benchmark::AddCustomContext("first_plan_of_the_process_us", first);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
