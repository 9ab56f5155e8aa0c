// Crash recovery under the Monkey policy: a child process (crash_loader.cc)
// loads a DB with sync=true and is killed with SIGKILL at random points, over
// and over. After every kill the DB is reopened from its own OPTIONS file,
// with the Monkey policy re-created from that file, and must hold every
// acknowledged key; and every SST's filter must still be exactly the size the
// plan gives its creation level.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "monkey/install.h"
#include "monkey/monkey_filter_policy.h"
#include "monkey/rocksdb_compat.h"
#include "monkey/tests/reliability/crash_load.h"
#include "monkey/tests/reliability/creation_level.h"
#include "monkey/tests/test_util.h"
#include "rocksdb/db.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/options_util.h"

extern char** environ;

namespace monkey {
namespace {

// The policy the child installs; the parent must get it back from the
// OPTIONS file alone.
// The static shape: a file's plan then depends only on the level it was
// built for, which the check after each crash can recompute exactly.
constexpr char kFilterUri[] =
    "id=monkey;bits_per_key=7;size_ratio=10;last_level_filter=false;"
    "shape=static";
constexpr int kKills = 24;
// Each child is killed after a random time in [0, kMaxRunMs): early kills
// land while it recovers the previous crash, later ones while it writes,
// flushes and compacts.
constexpr int kMaxRunMs = 1500;
// Key numbers of run r start at r * kRunStride.
constexpr uint64_t kRunStride = 1'000'000'000;

struct LoaderRun {
  uint64_t first = 0;
  uint64_t acked = 0;
  // What the child saw complete before it died.
  int flushes = 0;
  int compactions = 0;                    // into L1 and below
  bool flushed_since_compaction = false;  // an L0 file it left behind
};

// Starts the loader with its stdout on a pipe and its stderr in a file.
pid_t SpawnLoader(const std::string& db_dir, uint64_t first,
                  const std::string& stderr_path, int* read_fd) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const std::string first_arg = std::to_string(first);
  const char* argv[] = {MONKEY_CRASH_LOADER, db_dir.c_str(), kFilterUri,
                        first_arg.c_str(), nullptr};
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, MONKEY_CRASH_LOADER, &actions, nullptr,
                             const_cast<char**>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  EXPECT_EQ(rc, 0) << "cannot start " << MONKEY_CRASH_LOADER;
  *read_fd = fds[0];
  return pid;
}

// Reads the child's lines until the deadline, kills the child, then reads
// what it had written before it died, into `run`.
void RunAndKill(pid_t pid, int fd, std::chrono::milliseconds run_for,
                const std::string& stderr_path, LoaderRun* run) {
  const auto deadline = std::chrono::steady_clock::now() + run_for;
  std::string buffer;
  bool killed = false;
  for (;;) {
    int timeout_ms = -1;
    if (!killed) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        EXPECT_EQ(kill(pid, SIGKILL), 0);
        killed = true;
        continue;
      }
      timeout_ms = static_cast<int>(left.count());
    }
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, timeout_ms) <= 0) continue;
    char chunk[4096];
    const ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n <= 0) break;  // EOF: the child is gone
    buffer.append(chunk, n);
  }
  close(fd);
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
    std::ifstream err(stderr_path);
    std::stringstream text;
    text << err.rdbuf();
    ADD_FAILURE() << "the loader ended by itself (status " << status
                  << ") before the kill: " << text.str();
  }
  std::istringstream lines(buffer);
  std::string word;
  uint64_t n = 0;
  while (lines >> word >> n) {
    if (word == "acked") {
      run->acked = n;
    } else if (word == "flushed") {
      ++run->flushes;
      run->flushed_since_compaction = true;
    } else if (word == "compacted" && n > 0) {
      ++run->compactions;
      run->flushed_since_compaction = false;
    }
  }
}

class CrashRecoveryTest : public ::testing::Test {
 protected:
  // Reopens the DB as its OPTIONS file says (automatic compactions held
  // back until the files are checked), with the policy created from the
  // file, and checks the keys and the filters. Returns the number
  // of acknowledged keys checked.
  uint64_t CheckAfterCrash(const std::vector<LoaderRun>& runs) {
    // Everything the OPTIONS file names must be known before it is read.
    RegisterOnce();
    test::RegisterCreationLevelCollector();
    ROCKSDB_NAMESPACE::ConfigOptions config;
    config.ignore_unsupported_options = false;
    ROCKSDB_NAMESPACE::DBOptions db_options;
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor> cfs;
    ROCKSDB_NAMESPACE::Status s = ROCKSDB_NAMESPACE::LoadLatestOptions(
        config, db_dir(), &db_options, &cfs);
    if (s.IsNotFound()) {
      // Killed before the first OPTIONS file was written: nothing was
      // acknowledged either.
      for (const LoaderRun& run : runs) EXPECT_EQ(run.acked, 0u);
      return 0;
    }
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok()) return 0;
    EXPECT_EQ(cfs.size(), 1u);
    const auto* table =
        cfs[0]
            .options.table_factory
            ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>();
    EXPECT_NE(table, nullptr);
    EXPECT_NE(table->filter_policy, nullptr);
    if (table == nullptr || table->filter_policy == nullptr) return 0;
    const auto* policy =
        table->filter_policy->CheckedCast<MonkeyFilterPolicy>();
    EXPECT_NE(policy, nullptr) << table->filter_policy->Name();
    if (policy == nullptr) return 0;
    EXPECT_EQ(policy->options().bits_per_key, 7);
    EXPECT_EQ(policy->options().size_ratio, 10);
    EXPECT_FALSE(policy->options().last_level_filter);
    EXPECT_EQ(policy->options().shape, MonkeyOptions::Shape::kStatic);

    // Check the files as recovery left them, L0 included, before
    // compactions change them: compactions start only after the check. (A
    // compaction that Open schedules can otherwise run before any pause and
    // empty L0, as it did under TSan's slowdown.)
    const bool auto_compactions = !cfs[0].options.disable_auto_compactions;
    cfs[0].options.disable_auto_compactions = true;
    std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*> handles;
    s = OpenDB(db_options, db_dir(), cfs, &handles, &db);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok()) return 0;
    CheckFiltersFollowThePlan(db.get(), *policy, cfs[0].options.num_levels);
    if (auto_compactions) {
      EXPECT_TRUE(
          db->SetOptions(handles[0], {{"disable_auto_compactions", "false"}})
              .ok());
    }

    uint64_t checked = 0, missing = 0;
    std::string value;
    for (const LoaderRun& run : runs) {
      for (uint64_t i = run.first; i < run.first + run.acked; ++i) {
        s = db->Get(ROCKSDB_NAMESPACE::ReadOptions(), test::CrashKey(i),
                    &value);
        missing += !s.ok() || value != test::CrashValue(i);
        ++checked;
      }
    }
    EXPECT_EQ(missing, 0u) << "acknowledged keys lost";
    for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
    return checked;
  }

  // Each SST's filter is exactly FastLocalBloom's size for its keys at the
  // bits the plan gives the level it was built for (a trivially moved file
  // keeps the filter of its creation level).
  void CheckFiltersFollowThePlan(ROCKSDB_NAMESPACE::DB* db,
                                 const MonkeyFilterPolicy& policy,
                                 int num_levels) {
    std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
    db->GetLiveFilesMetaData(&files);
    ROCKSDB_NAMESPACE::TablePropertiesCollection props;
    ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
    for (const auto& f : files) {
      const auto it = props.find(f.db_path + f.name);
      ASSERT_NE(it, props.end()) << f.name;
      const ROCKSDB_NAMESPACE::TableProperties& p = *it->second;
      const int created = test::CreationLevel(p);
      ASSERT_GE(created, 0) << f.name << " has no creation level";
      EXPECT_LE(created, f.level) << f.name << " moved up?";
      const int millibits = policy.MillibitsForLevel(created, num_levels);
      EXPECT_EQ(p.filter_size,
                test::BloomFilterBytes(p.num_filter_entries, millibits))
          << f.name << " at L" << f.level << ", built for L" << created << " ("
          << millibits / 1000.0 << " bits/key planned), "
          << p.num_filter_entries << " keys";
      Level& level = levels_[f.level];
      level.files += 1;
      level.entries += p.num_entries;
      level.filter_bytes += p.filter_size;
      level.moved += created < f.level;
      level.planned_bits += p.num_entries * (millibits / 1000.0);
      ++files_checked_;
      moved_checked_ += created < f.level;
      l0_checked_ += f.level == 0;
    }
  }

  struct Level {
    uint64_t files = 0, entries = 0, filter_bytes = 0, moved = 0;
    double planned_bits = 0;
  };
  std::string db_dir() const { return dir_.Sub("db"); }
  std::map<int, Level> levels_;  // of the last check
  // Over all checks: files whose filter was checked, of them moved and L0.
  uint64_t files_checked_ = 0, moved_checked_ = 0, l0_checked_ = 0;
  test::TempDir dir_;
};

TEST_F(CrashRecoveryTest, EveryAcknowledgedKeySurvivesSigkill) {
  const char* seed_env = std::getenv("MONKEY_CRASH_SEED");
  const uint32_t seed = seed_env ? std::strtoul(seed_env, nullptr, 10) : 5;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> run_ms(0, kMaxRunMs);
  const std::string stderr_path = dir_.Sub("loader.stderr");

  std::vector<LoaderRun> runs;
  uint64_t acked_total = 0, checked = 0;
  int flushes = 0, compactions = 0;
  bool l0_left = false;
  for (int kill_number = 1; kill_number <= kKills; ++kill_number) {
    LoaderRun run;
    run.first = kill_number * kRunStride;
    int fd = -1;
    const pid_t pid = SpawnLoader(db_dir(), run.first, stderr_path, &fd);
    ASSERT_GT(pid, 0);
    const int ms = run_ms(rng);
    RunAndKill(pid, fd, std::chrono::milliseconds(ms), stderr_path, &run);
    runs.push_back(run);
    acked_total += run.acked;
    flushes += run.flushes;
    compactions += run.compactions;
    l0_left |= run.flushed_since_compaction;
    levels_.clear();
    checked = CheckAfterCrash(runs);
    printf(
        "kill %2d after %4d ms: %6llu keys acked, %d flushes and %d "
        "compactions completed in this run; %7llu acknowledged keys present "
        "after reopening\n",
        kill_number, ms, static_cast<unsigned long long>(run.acked),
        run.flushes, run.compactions, static_cast<unsigned long long>(checked));
    ASSERT_FALSE(HasFailure()) << "seed " << seed << ", kill " << kill_number;
  }
  EXPECT_EQ(checked, acked_total);
  // What was checked must cover what the runs made, whatever the disk's
  // speed and the kills' timing: the files of completed flushes, a level
  // below L0 once a compaction into one completed, and an L0 file when a
  // run died with a flushed file not yet compacted.
  if (flushes > 0) EXPECT_GT(files_checked_, 0u);
  if (compactions > 0) {
    EXPECT_TRUE(levels_.upper_bound(0) != levels_.end())
        << "no level below L0 after " << compactions << " compactions";
  }
  if (l0_left) EXPECT_GT(l0_checked_, 0u);
  printf(
      "%d kills survived; %llu acknowledged keys; %d flushes and %d "
      "compactions completed; %llu SST filters checked against the plan "
      "(%llu in L0, %llu trivially moved)\n",
      kKills, static_cast<unsigned long long>(acked_total), flushes,
      compactions, static_cast<unsigned long long>(files_checked_),
      static_cast<unsigned long long>(l0_checked_),
      static_cast<unsigned long long>(moved_checked_));
  printf("Last check:\n");
  printf("level files moved entries  filter_bytes realized_bpk planned_bpk\n");
  for (const auto& [level, l] : levels_) {
    printf("L%-4d %5llu %5llu %7llu %13llu %12.3f %11.3f\n", level,
           static_cast<unsigned long long>(l.files),
           static_cast<unsigned long long>(l.moved),
           static_cast<unsigned long long>(l.entries),
           static_cast<unsigned long long>(l.filter_bytes),
           8.0 * l.filter_bytes / l.entries, l.planned_bits / l.entries);
  }
}

}  // namespace
}  // namespace monkey
