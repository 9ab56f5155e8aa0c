// Reading a database for the advisor. See db_facts.h.
//
// Read-only, and safe next to a live writer: RocksDB 7.8.3's
// DB::OpenForReadOnly takes no LOCK (DBImpl::Recover locks only when not
// read_only) and writes nothing to the directory (no info LOG either);
// tests/tools/monkey_plan_test.cc opens the database from another process
// while the test holds it open. Files the writer deletes under us (a
// compaction finishing) make a read fail; then it opens again, a few times.
#include "monkey/tools/advisor/db_facts.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include "monkey/filter_report.h"
#include "monkey/install.h"
#include "monkey/rocksdb_compat.h"
#include "monkey/table/shape_listener.h"
#include "monkey/util/sst_file_name.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/utilities/options_util.h"

namespace monkey::advisor {
namespace {

using ROCKSDB_NAMESPACE::ColumnFamilyDescriptor;
using ROCKSDB_NAMESPACE::ColumnFamilyHandle;
using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::DBOptions;
using ROCKSDB_NAMESPACE::Status;

constexpr int kAttempts = 5;

struct Failure {
  int code = kOk;
  std::string message;
  bool retry = false;  // a file vanished: worth opening again
};

// A file the other process deleted since we read the MANIFEST.
bool Vanished(const Status& s) {
  return s.IsPathNotFound() ||
         (s.IsIOError() &&
          s.ToString().find("No such file") != std::string::npos);
}

// The options the database was last opened with (its OPTIONS file: the
// comparator, and the filter policy, which tells Monkey's filter kind), or
// defaults for each column family if there is none that loads.
void LoadOptions(const std::string& path, const std::vector<std::string>& names,
                 DBOptions* db_options,
                 std::vector<ColumnFamilyDescriptor>* descriptors,
                 std::vector<std::string>* notes) {
  RegisterOnce();  // so that "monkey" in the OPTIONS file loads
  Status s;
  for (bool ignore_unknown : {false, true}) {
    ROCKSDB_NAMESPACE::ConfigOptions config;
    config.ignore_unknown_options = ignore_unknown;
    config.input_strings_escaped = true;
    descriptors->clear();
    s = ROCKSDB_NAMESPACE::LoadLatestOptions(config, path, db_options,
                                             descriptors);
    if (s.ok()) break;
  }
  if (!s.ok()) {
    notes->push_back("no OPTIONS file that loads (" + s.ToString() +
                     "): default options; Monkey's filter kind is taken as "
                     "bloom");
    *db_options = DBOptions();
    descriptors->clear();
  }
  // Column families the OPTIONS file does not list get defaults.
  for (const std::string& name : names) {
    bool listed = false;
    for (const ColumnFamilyDescriptor& d : *descriptors) {
      listed |= d.name == name;
    }
    if (!listed) {
      descriptors->emplace_back(name, ROCKSDB_NAMESPACE::ColumnFamilyOptions());
    }
  }
  // Ones it lists that are gone would fail the open.
  std::vector<ColumnFamilyDescriptor> live;
  for (ColumnFamilyDescriptor& d : *descriptors) {
    for (const std::string& name : names) {
      if (d.name == name) {
        live.push_back(std::move(d));
        break;
      }
    }
  }
  *descriptors = std::move(live);
  db_options->create_if_missing = false;
  db_options->error_if_exists = false;
  // Table readers only to read table properties: a small table cache, so
  // that opening does not load every file's index and filter.
  db_options->max_open_files = 64;
  db_options->skip_stats_update_on_db_open = true;
  SkipCheckingSstFileSizesOnOpen(db_options);
  // A table whose properties cannot be read must not fail the open: the
  // advisor reports it by name (kNoTableProperties) instead.
  db_options->paranoid_checks = false;
  db_options->verify_sst_unique_id_in_manifest = false;
  db_options->stats_dump_period_sec = 0;
  db_options->stats_persist_period_sec = 0;
  db_options->statistics = nullptr;
  db_options->listeners.clear();
}

// A fresh empty directory under $TMPDIR, removed again.
class EmptyDir {
 public:
  EmptyDir() {
    const char* tmp = getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != 0 ? tmp : "/tmp") +
        "/monkey_plan_XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~EmptyDir() {
    if (!path_.empty()) rmdir(path_.c_str());
  }
  EmptyDir(const EmptyDir&) = delete;
  EmptyDir& operator=(const EmptyDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// One column family's levels, from its table properties.
Failure ReadColumnFamily(DB* db, ColumnFamilyHandle* cf,
                         ColumnFamilyFacts* facts) {
  facts->name = cf->GetName();
  // The filter layout its OPTIONS file gives: partitions of about
  // metadata_block_size bytes, or one full filter block a file.
  const auto* table =
      db->GetOptions(cf)
          .table_factory
          ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>();
  if (table != nullptr && table->partition_filters) {
    facts->filter_partition_bytes =
        static_cast<double>(table->metadata_block_size);
  }
  switch (db->GetOptions(cf).compaction_style) {
    case ROCKSDB_NAMESPACE::kCompactionStyleUniversal:
      facts->compaction_style = "universal";
      break;
    case ROCKSDB_NAMESPACE::kCompactionStyleFIFO:
      facts->compaction_style = "fifo";
      break;
    default:
      facts->compaction_style = "level";
  }
  ROCKSDB_NAMESPACE::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(cf, &meta);
  facts->files = meta.file_count;
  if (meta.file_count == 0) return {};

  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  Status s = db->GetPropertiesOfAllTables(cf, &props);
  if (!s.ok()) {
    return {Vanished(s) ? kRocksDbError : kNoTableProperties,
            "cannot read the table properties of column family '" +
                facts->name + "': " + s.ToString(),
            Vanished(s)};
  }
  std::map<uint64_t, const ROCKSDB_NAMESPACE::TableProperties*> by_number;
  for (const auto& [path, p] : props) by_number[SstFileNumber(path)] = p.get();
  // Each file as the policy's listener describes it (DescribeFile:
  // number, level, entries, size, key range), for the live shape the
  // advisor plans; its filter is left unknown (see util/advisor.h).
  std::map<int, double> unfiltered_entries;
  std::map<int, uint64_t> files_at;
  std::map<int, AdvisorLevel> blocks_at;  // index and data, per level
  for (const ROCKSDB_NAMESPACE::LevelMetaData& level : meta.levels) {
    for (const ROCKSDB_NAMESPACE::SstFileMetaData& f : level.files) {
      auto it = by_number.find(f.file_number);
      const std::string name = f.db_path + f.name;
      if (it == by_number.end() || it->second == nullptr) {
        return {kNoTableProperties, "SST file " + name +
                                        " has no table properties "
                                        "(its properties block is missing "
                                        "or corrupt)"};
      }
      const ROCKSDB_NAMESPACE::TableProperties& p = *it->second;
      if (p.filter_size > 0 && p.num_filter_entries == 0) {
        return {kNoTableProperties,
                "SST file " + name +
                    " has a filter but no num_filter_entries property "
                    "(written by RocksDB before 6.21): its bits per key "
                    "are unknown"};
      }
      if (p.filter_size == 0) {
        unfiltered_entries[level.level] += static_cast<double>(p.num_entries);
      }
      // A partitioned index's top level is read through its own block
      // (pinned by pin_top_level_index_and_filter): the blocks below it
      // are what lookups compete for.
      AdvisorLevel& blocks = blocks_at[level.level];
      blocks.index_bytes += static_cast<double>(
          p.index_size - std::min(p.index_size, p.top_level_index_size));
      blocks.index_blocks +=
          p.index_partitions > 0 ? static_cast<double>(p.index_partitions) : 1;
      blocks.data_bytes += static_cast<double>(p.data_size);
      blocks.data_blocks += static_cast<double>(p.num_data_blocks);
      LiveFile file = DescribeFile(f, level.level);
      // num_entries from the properties: the metadata's is 0 for files
      // whose properties the open did not load (skip_stats_update_on_db_open).
      file.entries = static_cast<double>(p.num_entries);
      facts->live_files.push_back(file);
      file.filter_known = true;
      file.filter_bits = 8 * static_cast<double>(p.filter_size);
      file.filter_entries = static_cast<double>(p.num_filter_entries);
      facts->files_with_filters.push_back(std::move(file));
      ++files_at[level.level];
    }
  }

  // Files, keys, filter bytes, kinds and model FPRs per level: the filter
  // report's, with no lookups counted.
  FilterStatsCollector no_lookups;
  FilterReport report;
  s = BuildFilterReport(db, no_lookups, "advisor", &report, cf);
  if (!s.ok()) {
    // Its per-level properties are read afresh from the files, which a
    // writer's compaction may have deleted since: worth another look.
    return {kRocksDbError,
            "cannot read the levels of column family '" + facts->name +
                "': " + s.ToString(),
            /*retry=*/true};
  }
  for (const LevelFilterReport& l : report.levels) {
    if (l.level < 0) continue;
    // The report reads the metadata again: a writer's compaction in
    // between may have changed the files (Advise checks the counts too).
    if (files_at[l.level] != l.files) {
      return {kRocksDbError,
              "the files of column family '" + facts->name +
                  "' changed while they were read",
              /*retry=*/true};
    }
    if (l.files == 0) continue;
    AdvisorLevel a;
    a.level = l.level;
    a.files = static_cast<double>(l.files);
    a.entries = static_cast<double>(l.entries);
    a.filter_entries = static_cast<double>(l.filter_entries);
    a.filter_bytes = static_cast<double>(l.filter_bytes);
    a.unfiltered_entries = unfiltered_entries[l.level];
    a.filter = l.filter;
    a.model_fpr = l.model_fpr.value_or(1.0);
    const AdvisorLevel& blocks = blocks_at[l.level];
    a.index_bytes = blocks.index_bytes;
    a.index_blocks = blocks.index_blocks;
    a.data_bytes = blocks.data_bytes;
    a.data_blocks = blocks.data_blocks;
    facts->levels.push_back(a);
  }
  return {};
}

Failure ReadOnce(const std::string& path, const std::vector<std::string>& names,
                 const std::string& column_family,
                 std::vector<ColumnFamilyFacts>* facts,
                 std::vector<std::string>* notes) {
  DBOptions db_options;
  std::vector<ColumnFamilyDescriptor> descriptors;
  LoadOptions(path, names, &db_options, &descriptors, notes);
  // No WAL replay: the advisor reads SSTs, and a read-only open would
  // rebuild the memtables from the WAL first -- 64 MB of it took 1.3 s on
  // an idle machine and up to 12 s next to a writer and its compactions.
  // An empty directory as wal_dir has no WAL to replay; the open writes
  // nothing there.
  const EmptyDir no_wal;
  if (no_wal.path().empty()) {
    return {kRocksDbError, "cannot make a temporary directory: " +
                               std::string(strerror(errno))};
  }
  db_options.wal_dir = no_wal.path();
  std::vector<ColumnFamilyHandle*> handles;
  std::unique_ptr<DB> db;
  Status s = OpenDBForReadOnly(db_options, path, descriptors, &handles, &db,
                               /*error_if_wal_file_exists=*/false);
  if (!s.ok()) {
    // A writer may be deleting files or appending to its MANIFEST as we
    // read them; anything else (a comparator it does not know) stays.
    return {kRocksDbError,
            "cannot open " + path + " read-only: " + s.ToString(),
            Vanished(s) || s.IsCorruption() || s.IsIOError()};
  }
  Failure failure;
  facts->clear();
  for (ColumnFamilyHandle* cf : handles) {
    if (!column_family.empty() && cf->GetName() != column_family) continue;
    ColumnFamilyFacts one;
    failure = ReadColumnFamily(db.get(), cf, &one);
    if (failure.code != kOk) break;
    facts->push_back(std::move(one));
  }
  for (ColumnFamilyHandle* cf : handles) {
    db->DestroyColumnFamilyHandle(cf).PermitUncheckedError();
  }
  db->Close().PermitUncheckedError();
  return failure;
}

}  // namespace

int ReadDbFacts(const std::string& path, const std::string& column_family,
                std::vector<ColumnFamilyFacts>* facts,
                std::vector<std::string>* notes, std::string* message) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    const int error = errno;
    *message = path + ": " + strerror(error);
    return error == ENOENT || error == ENOTDIR ? kNoSuchPath : kRocksDbError;
  }
  if (!S_ISDIR(st.st_mode)) {
    *message = path + " is a file, not a RocksDB database directory";
    return kNotADatabase;
  }
  struct stat current;
  if (stat((path + "/CURRENT").c_str(), &current) != 0) {
    *message = path + " is not a RocksDB database (it has no CURRENT file)";
    return kNotADatabase;
  }
  std::vector<std::string> names;
  Status s = DB::ListColumnFamilies(DBOptions(), path, &names);
  if (!s.ok()) {
    *message = path + " is not a readable RocksDB database: " + s.ToString();
    return kNotADatabase;
  }
  if (!column_family.empty()) {
    bool known = false;
    std::string all;
    for (const std::string& name : names) {
      known |= name == column_family;
      all += (all.empty() ? "'" : ", '") + name + "'";
    }
    if (!known) {
      *message = path + " has no column family '" + column_family +
                 "' (it has " + all + ")";
      return kUnknownColumnFamily;
    }
  }
  Failure failure;
  for (int attempt = 1; attempt <= kAttempts; ++attempt) {
    std::vector<std::string> attempt_notes;
    failure = ReadOnce(path, names, column_family, facts, &attempt_notes);
    if (!failure.retry || attempt == kAttempts) {
      notes->insert(notes->end(), attempt_notes.begin(), attempt_notes.end());
      break;
    }
    // Maybe a file the writer deleted; its MANIFEST has moved on.
  }
  *message = failure.message;
  return failure.code;
}

}  // namespace monkey::advisor
