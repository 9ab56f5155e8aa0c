// Rebuilds the filters of a settled leveled database under another filter
// policy, keeping its tree: every non-empty level below L0 is compacted into
// itself (DB::CompactFiles, no trivial move), deepest first, with automatic
// compactions off, so each level keeps its keys and the new filters are built
// for the level they sit on, by a policy that sees the whole tree. The cache
// grid (bench/cache_grid.py --same_tree) uses it to compare filter policies
// on one tree: loaded apart, the trees differ in more than their filters
// (which files compaction moved down whole, how much of the key range each
// level covers), and a configuration beats another by its tree as much as
// by its bits.
//
//   refilter --db=DIR --filter_uri=SPEC [--optimize_filters_for_hits]
//            [--cache_bytes=N]
//
// --cache_bytes gives the table options a one-shard LRU block cache of N
// bytes that filters and indexes are read through (as the grid's reads
// are), so that objective=io plans for it. A database with L0 files is
// refused: they would stay as they are.
#include <gflags/gflags.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "monkey/install.h"
#include "monkey/rocksdb_compat.h"
#include "rocksdb/cache.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/options_util.h"

DEFINE_string(db, "", "The database, closed (its OPTIONS file is read)");
DEFINE_string(filter_uri, "", "The filter policy to rebuild the filters with");
DEFINE_bool(optimize_filters_for_hits, false,
            "RocksDB's option: no filter on the last level");
DEFINE_int32(passes, 2,
             "Rewrites of the whole tree: a budget policy holds its budget "
             "over the files built before, so the first pass builds each "
             "level beside the old filters of the others");
DEFINE_int64(cache_bytes, 0,
             "A block cache of this many bytes for filters and indexes "
             "(cache_index_and_filter_blocks); 0: the OPTIONS file's table "
             "options as they are");

namespace {

using ROCKSDB_NAMESPACE::BlockBasedTableOptions;
using ROCKSDB_NAMESPACE::ColumnFamilyMetaData;
using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::Status;

int Fail(const std::string& what, const Status& s) {
  std::fprintf(stderr, "refilter: %s: %s\n", what.c_str(),
               s.ToString().c_str());
  return 1;
}

std::vector<std::string> FilesAt(DB* db, int level) {
  ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  std::vector<std::string> names;
  for (const auto& f : meta.levels[level].files) names.push_back(f.name);
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "refilter --db=DIR --filter_uri=SPEC [--optimize_filters_for_hits] "
      "[--cache_bytes=N]");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  if (FLAGS_db.empty() || FLAGS_filter_uri.empty()) {
    std::fprintf(stderr, "refilter: --db and --filter_uri are required\n");
    return 2;
  }
  ROCKSDB_NAMESPACE::ConfigOptions config;
  config.ignore_unknown_options = true;
  config.input_strings_escaped = true;
  ROCKSDB_NAMESPACE::DBOptions db_options;
  std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor> families;
  Status s = ROCKSDB_NAMESPACE::LoadLatestOptions(config, FLAGS_db, &db_options,
                                                  &families);
  if (!s.ok()) return Fail("reading the OPTIONS file of " + FLAGS_db, s);
  if (families.size() != 1) {
    std::fprintf(stderr,
                 "refilter: %s has %zu column families; only one is "
                 "rebuilt\n",
                 FLAGS_db.c_str(), families.size());
    return 2;
  }
  ROCKSDB_NAMESPACE::Options options(db_options, families[0].options);
  options.create_if_missing = false;
  options.disable_auto_compactions = true;
  options.optimize_filters_for_hits = FLAGS_optimize_filters_for_hits;
  auto* table =
      options.table_factory == nullptr
          ? nullptr
          : options.table_factory->GetOptions<BlockBasedTableOptions>();
  if (table == nullptr) {
    std::fprintf(stderr, "refilter: %s has no block-based table factory\n",
                 FLAGS_db.c_str());
    return 2;
  }
  if (FLAGS_cache_bytes > 0) {
    ROCKSDB_NAMESPACE::LRUCacheOptions lru;
    lru.capacity = static_cast<size_t>(FLAGS_cache_bytes);
    lru.num_shard_bits = 0;
    lru.high_pri_pool_ratio = 0;
    table->block_cache = ROCKSDB_NAMESPACE::NewLRUCache(lru);
    table->cache_index_and_filter_blocks = true;
  }
  // Install after the table options are final: objective=io reads the
  // block cache's capacity from them.
  s = monkey::Install(FLAGS_filter_uri, &options);
  if (!s.ok()) return Fail("--filter_uri=" + FLAGS_filter_uri, s);
  std::unique_ptr<DB> db;
  s = monkey::OpenDB(options, FLAGS_db, &db);
  if (!s.ok()) return Fail("opening " + FLAGS_db, s);
  monkey::RefreshShape(db.get());
  ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  if (!meta.levels.empty() && !meta.levels[0].files.empty()) {
    std::fprintf(stderr, "refilter: %s has %zu L0 files; settle it first\n",
                 FLAGS_db.c_str(), meta.levels[0].files.size());
    return 2;
  }
  for (int pass = 1; pass <= FLAGS_passes; ++pass) {
    for (int level = static_cast<int>(meta.levels.size()) - 1; level >= 1;
         --level) {
      const std::vector<std::string> files = FilesAt(db.get(), level);
      if (files.empty()) continue;
      std::fprintf(stderr, "refilter: pass %d: L%d: %zu files rewritten\n",
                   pass, level, files.size());
      ROCKSDB_NAMESPACE::CompactionOptions compact;
      compact.max_subcompactions = 1;
      // The column family's compression, not CompactionOptions' default
      // (Snappy): the tree's data blocks must stay as they were.
      compact.compression = ROCKSDB_NAMESPACE::kDisableCompressionOption;
      // Files of the size compaction cuts (CompactFiles' default is one
      // file): full filters come one block a file. The grid's trees have
      // target_file_size_multiplier 1, where every level's is the base.
      compact.output_file_size_limit = options.target_file_size_base;
      for (int l = 1; l < level; ++l) {
        compact.output_file_size_limit *= options.target_file_size_multiplier;
      }
      s = db->CompactFiles(compact, files, level);
      if (!s.ok()) return Fail("rewriting L" + std::to_string(level), s);
      monkey::RefreshShape(db.get());
    }
  }
  s = db->Close();
  if (!s.ok()) return Fail("closing " + FLAGS_db, s);
  return 0;
}
