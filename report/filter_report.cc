// BuildFilterReport: per-level filter memory from the DB's table properties,
// per-level outcomes from a FilterStatsCollector, and the FPR the model
// predicts for the bits per key the files really hold.
// See include/monkey/filter_report.h.
#include "monkey/filter_report.h"

#include <cmath>
#include <cstdlib>
#include <set>

#include "monkey/monkey_filter_policy.h"
#include "monkey/table/shape_listener.h"
#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/filter_fpr_spread.h"
#include "monkey/util/key_range.h"
#include "monkey/util/sst_file_name.h"
#include "monkey/util/tiered_shape.h"
#include "rocksdb/cache.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"

namespace monkey {
namespace {

using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::Status;

// Which filter a file holds, from what its table properties and the DB's
// current options tell. nullopt: no filter.
std::optional<FprModel> ModelForFile(
    const ROCKSDB_NAMESPACE::TableProperties& props, int level,
    const ROCKSDB_NAMESPACE::FilterPolicy* current) {
  const uint64_t filter_entries = FilterEntriesOf(props);
  if (filter_entries == 0) return std::nullopt;
  // Ribbon's slots per key depend on how many entries its filter holds.
  const FprModel ribbon = FprModel::Ribbon(RibbonSlotsPerKey(filter_entries));
  // Bloom for flushes and L0, Ribbon below (ribbonfilter's default
  // bloom_before_level=0, and Monkey's filter=auto). A body that is not whole
  // cache lines cannot be Bloom (FastLocalBloom's body is whole 64-byte
  // cache lines, Ribbon's whole 16-byte segments, and kFilterMetadataBytes
  // follow either); otherwise go by level.
  const bool whole_lines = (props.filter_size - kFilterMetadataBytes) % 64 == 0;
  const FprModel bloom_at_l0 =
      whole_lines && level == 0 ? FprModel::FastLocalBloom() : ribbon;
  const std::string& name = props.filter_policy_name;
  if (name == "monkey") {
    // Which kind Monkey builds at a level is in its options, not the file.
    const auto* monkey = current == nullptr
                             ? nullptr
                             : current->CheckedCast<MonkeyFilterPolicy>();
    if (monkey != nullptr && monkey->BuildsRibbon(level)) return ribbon;
    return FprModel::FastLocalBloom();
  }
  if (name.find("ibbon") != std::string::npos) return bloom_at_l0;
  return FprModel::FastLocalBloom();
}

uint64_t MapValue(const std::map<std::string, std::string>& map,
                  const std::string& key) {
  auto it = map.find(key);
  return it == map.end() ? 0 : std::strtoull(it->second.c_str(), nullptr, 10);
}

// Where a level's files lie: a KeySpace of their ends (key_range.h), so
// that keys spelled as text are weighed by what they spell.
KeySpace KeySpaceOf(
    const std::vector<ROCKSDB_NAMESPACE::SstFileMetaData>& files) {
  std::vector<std::string_view> keys;
  for (const ROCKSDB_NAMESPACE::SstFileMetaData& f : files) {
    keys.push_back(f.smallestkey);
    keys.push_back(f.largestkey);
  }
  return KeySpace(keys);
}

// The model, each file at its filter body's bits (FilterBodyBitsPerKey),
// averaged over a level's files by the key range each covers: a
// lookup reaches a file's filter only inside the file's range, and absent
// keys spread evenly over the key space. (Weighting by keys would not do: a
// file moved down from a sparser level covers a wider range per key.)
struct ModelSum {
  double weighted_fpr = 0;
  double weight = 0;
  double weighted_by_keys = 0;  // fallback when no file has a width
  double keys = 0;
  // Each file's filter strays from the model by its own spread
  // (util/filter_fpr_spread.h); the level's FPR is the files' average.
  double spread_by_width = 0;  // sum of (width * stddev)^2
  double spread_by_keys = 0;
  std::set<std::string> kinds;
  void Add(const FprModel& model, uint64_t filter_bytes,
           uint64_t filter_entries, double width) {
    const double bits = FilterBodyBitsPerKey(filter_bytes, filter_entries);
    const double fpr = model.FalsePositiveRate(bits);
    const double stddev = FilterFprStddev(model, bits, filter_entries);
    weighted_fpr += width * fpr;
    weight += width;
    weighted_by_keys += filter_entries * fpr;
    keys += filter_entries;
    spread_by_width += width * width * stddev * stddev;
    spread_by_keys += filter_entries * filter_entries * stddev * stddev;
    kinds.insert(model.Name());
  }
  bool empty() const { return keys == 0; }
  double Fpr() const {
    return weight > 0 ? weighted_fpr / weight : weighted_by_keys / keys;
  }
  // The variance of the level's realized FPR around Fpr().
  double SpreadVariance() const {
    return weight > 0 ? spread_by_width / (weight * weight)
                      : spread_by_keys / (keys * keys);
  }
};

}  // namespace

uint64_t FilterEntriesOf(const ROCKSDB_NAMESPACE::TableProperties& props) {
  if (props.filter_size == 0) return 0;
  // Old format (before RocksDB 6.21): a filter without num_filter_entries.
  // Its stored keys are the best divisor there is (exact without a prefix
  // extractor).
  if (props.num_filter_entries == 0) return props.num_entries;
  return props.num_filter_entries;
}

bool FilterReport::ModelAgrees() const {
  for (const LevelFilterReport& l : levels) {
    if (l.model_agrees.has_value() && !*l.model_agrees) return false;
  }
  return true;
}

namespace {

// The block-based table options of `cf`, or nullptr for another table.
const ROCKSDB_NAMESPACE::BlockBasedTableOptions* TableOptionsOf(
    const ROCKSDB_NAMESPACE::Options& options) {
  return options.table_factory == nullptr
             ? nullptr
             : options.table_factory
                   ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>();
}

using PropertiesByNumber =
    std::map<uint64_t,
             std::shared_ptr<const ROCKSDB_NAMESPACE::TableProperties>>;

const char* CompactionStyleName(ROCKSDB_NAMESPACE::CompactionStyle style) {
  switch (style) {
    case ROCKSDB_NAMESPACE::kCompactionStyleLevel:
      return "level";
    case ROCKSDB_NAMESPACE::kCompactionStyleUniversal:
      return "universal";
    case ROCKSDB_NAMESPACE::kCompactionStyleFIFO:
      return "fifo";
    default:
      return "none";
  }
}

// The sorted runs of a tiered tree, newest first, in the order, and with
// the reach, that ProjectTieredRuns gives them at rest (no job). A run that
// is its level's only run takes its level's figures, measured ones
// included; each file of an L0 with several has its own figures from its
// table properties and none measured: RocksDB counts L0's files together.
void AddSortedRuns(const ROCKSDB_NAMESPACE::ColumnFamilyMetaData& meta,
                   const PropertiesByNumber& by_number,
                   const ROCKSDB_NAMESPACE::FilterPolicy* policy,
                   FilterReport* report) {
  FilterReport& r = *report;
  std::vector<LiveFile> files;
  std::vector<const ROCKSDB_NAMESPACE::TableProperties*> props;
  int l0_files = 0;
  for (const ROCKSDB_NAMESPACE::LevelMetaData& level : meta.levels) {
    for (const ROCKSDB_NAMESPACE::SstFileMetaData& f : level.files) {
      auto it = by_number.find(f.file_number);
      if (it == by_number.end()) continue;  // deleted since the snapshot
      const ROCKSDB_NAMESPACE::TableProperties& p = *it->second;
      LiveFile file = DescribeFile(f, level.level);
      file.entries = static_cast<double>(p.num_entries);
      file.filter_known = true;
      file.filter_bits = 8.0 * p.filter_size;
      file.filter_entries = static_cast<double>(FilterEntriesOf(p));
      files.push_back(std::move(file));
      props.push_back(&p);
      if (level.level == 0) ++l0_files;
    }
  }
  const TieredRuns runs = ProjectTieredRuns(files, LiveJob(), 0);
  r.sorted_runs.assign(runs.runs.size(), SortedRunReport());
  std::map<int, const LevelFilterReport*> levels;
  for (const LevelFilterReport& l : r.levels) levels[l.level] = &l;
  for (size_t i = 0; i < runs.runs.size(); ++i) {
    SortedRunReport& run = r.sorted_runs[i];
    run.level = runs.runs[i].level;
    run.reach = runs.runs[i].reach;
    auto level = levels.find(run.level);
    if ((run.level == 0 && l0_files > 1) || level == levels.end()) continue;
    const LevelFilterReport& l = *level->second;
    run.files = l.files;
    run.entries = l.entries;
    run.filter_bytes = l.filter_bytes;
    run.filter_entries = l.filter_entries;
    run.bits_per_key = l.bits_per_key;
    run.filter = l.filter;
    run.model_fpr = l.model_fpr;
    run.probes = l.probes;
    run.false_positives = l.false_positives;
    run.fpr = l.fpr;
    if (r.fp_per_absent_lookup) {
      run.probes_per_lookup = static_cast<double>(l.probes) / *r.lookups;
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    const int at = runs.run_of_file[i];
    if (at < 0 || files[i].level != 0) continue;
    SortedRunReport& run = r.sorted_runs[at];
    run.file_number = files[i].number;
    if (l0_files == 1) continue;  // L0's figures are the file's
    const ROCKSDB_NAMESPACE::TableProperties& p = *props[i];
    run.files = 1;
    run.entries = p.num_entries;
    run.filter_bytes = p.filter_size;
    run.filter_entries = FilterEntriesOf(p);
    if (run.filter_entries > 0) {
      run.bits_per_key = 8.0 * run.filter_bytes / run.filter_entries;
    }
    const std::optional<FprModel> m = ModelForFile(p, 0, policy);
    if (m) {
      ModelSum model;
      model.Add(*m, p.filter_size, run.filter_entries, 0);
      run.filter = *model.kinds.begin();
      run.model_fpr = model.Fpr();
    }
  }
  double expected = 0;
  for (const SortedRunReport& run : r.sorted_runs) {
    expected += run.reach * run.model_fpr.value_or(1.0);
  }
  r.model_fp_per_absent_lookup = expected;
  auto l0 = levels.find(0);
  if (l0_files > 1 && l0 != levels.end() && l0->second->probes > 0) {
    r.notes.push_back(
        "L0's " + std::to_string(l0_files) +
        " files are as many sorted runs, which RocksDB's per-level counters "
        "count together: their measured FPR is L0's, not each file's");
  }
}

// Per level: files, keys, filter bytes and kind from the table properties,
// the model's FPR for them, and the outcomes the collector counted; the
// totals over levels; and false positives per absent lookup. Under
// universal or FIFO compaction, the sorted runs too.
Status AddLevelFigures(DB* db, ROCKSDB_NAMESPACE::ColumnFamilyHandle* cf,
                       const FilterStatsCollector& collector,
                       FilterReport* report) {
  FilterReport& r = *report;
  ROCKSDB_NAMESPACE::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(cf, &meta);
  ROCKSDB_NAMESPACE::TablePropertiesCollection all_props;
  Status s = db->GetPropertiesOfAllTables(cf, &all_props);
  if (!s.ok()) return s;
  PropertiesByNumber by_number;
  for (const auto& [path, props] : all_props) {
    by_number[SstFileNumber(path)] = props;
  }
  const ROCKSDB_NAMESPACE::Options options = db->GetOptions(cf);
  r.compaction_style = CompactionStyleName(options.compaction_style);
  const auto* table = TableOptionsOf(options);
  const ROCKSDB_NAMESPACE::FilterPolicy* policy =
      table == nullptr ? nullptr : table->filter_policy.get();
  const std::map<int, LevelFilterCounts> counts = collector.level_counts();
  const auto files_at_start = collector.FilesAtStart();
  std::string changed_levels;
  const int num_levels = static_cast<int>(meta.levels.size());
  for (int level = -1; level < num_levels; ++level) {
    const auto counted = counts.find(level);
    if (level < 0 && counted == counts.end()) continue;
    LevelFilterReport l;
    l.level = level;
    ModelSum model;
    if (level >= 0) {
      const ROCKSDB_NAMESPACE::LevelMetaData& files = meta.levels[level];
      l.files = files.files.size();
      std::map<std::string, std::string> aggregated;
      if (!db->GetMapProperty(
              cf,
              DB::Properties::kAggregatedTablePropertiesAtLevel +
                  std::to_string(level),
              &aggregated)) {
        return Status::NotSupported(
            "filter report: no " +
            DB::Properties::kAggregatedTablePropertiesAtLevel +
            std::to_string(level));
      }
      l.entries = MapValue(aggregated, "num_entries");
      l.filter_bytes = MapValue(aggregated, "filter_size");
      // num_filter_entries, plus num_entries of old-format files (below).
      l.filter_entries = MapValue(aggregated, "num_filter_entries");
      r.index_bytes_total += MapValue(aggregated, "index_size");
      std::set<uint64_t> numbers;
      const KeySpace space = KeySpaceOf(files.files);
      for (const ROCKSDB_NAMESPACE::SstFileMetaData& f : files.files) {
        numbers.insert(f.file_number);
        auto it = by_number.find(f.file_number);
        if (it == by_number.end()) continue;  // deleted since the snapshot
        const ROCKSDB_NAMESPACE::TableProperties& props = *it->second;
        if (props.num_filter_entries == 0) {
          l.filter_entries += FilterEntriesOf(props);  // old format
        }
        const std::optional<FprModel> m = ModelForFile(props, level, policy);
        if (m) {
          model.Add(
              *m, props.filter_size, FilterEntriesOf(props),
              space.Position(f.largestkey) - space.Position(f.smallestkey));
        }
      }
      if (files_at_start) {
        auto start = files_at_start->find(level);
        l.changed =
            numbers != (start == files_at_start->end() ? std::set<uint64_t>()
                                                       : start->second);
        if (l.changed) changed_levels += " L" + std::to_string(level);
      }
    }
    if (l.files == 0 && counted == counts.end()) continue;
    if (l.filter_entries > 0) {
      l.bits_per_key = 8.0 * l.filter_bytes / l.filter_entries;
    }
    if (!model.empty()) {
      l.filter = model.kinds.size() == 1 ? *model.kinds.begin() : "mixed";
      l.model_fpr = model.Fpr();
    }
    if (counted != counts.end()) {
      const LevelFilterCounts& c = counted->second;
      l.probes = c.probes();
      l.useful = c.useful;
      l.false_positives = c.false_positives();
      const uint64_t trials = l.useful + l.false_positives;
      if (trials > 0) {
        l.fpr = static_cast<double>(l.false_positives) / trials;
        if (l.model_fpr) {
          const double p = *l.model_fpr;
          // The probes' binomial error, and how far the level's filters,
          // as built, may stray from the model.
          l.fpr_sigma =
              std::sqrt(p * (1 - p) / trials + model.SpreadVariance());
          if (!l.changed) {
            l.model_agrees =
                std::fabs(*l.fpr - p) <= std::max(3 * *l.fpr_sigma, 0.05 * p);
          }
        }
      }
    }
    r.files += l.files;
    r.entries += l.entries;
    r.filter_bytes_total += l.filter_bytes;
    r.filter_entries_total += l.filter_entries;
    r.probes += l.probes;
    r.false_positives += l.false_positives;
    if (l.fpr) {
      r.sum_fpr = r.sum_fpr.value_or(0) + *l.fpr;
      if (l.model_fpr) {
        r.model_sum_fpr = r.model_sum_fpr.value_or(0) + *l.model_fpr;
      }
    }
    r.levels.push_back(std::move(l));
  }
  if (r.filter_entries_total > 0) {
    r.bits_per_key = 8.0 * r.filter_bytes_total / r.filter_entries_total;
  }
  if (!changed_levels.empty()) {
    r.notes.push_back("files changed during the measurement on" +
                      changed_levels +
                      "; their FPR is not compared with the model (a table "
                      "reader counts under the level it was opened at)");
  }

  r.lookups = collector.lookups();
  if (r.lookups) {
    const uint64_t found = collector.found().value_or(0);
    r.absent_lookups = *r.lookups >= found ? *r.lookups - found : 0;
    if (*r.lookups > 0 && found == 0) {
      r.fp_per_absent_lookup =
          static_cast<double>(r.false_positives) / *r.lookups;
    }
  }

  if (r.compaction_style == "universal" || r.compaction_style == "fifo") {
    AddSortedRuns(meta, by_number, policy, &r);
  }
  return Status::OK();
}

// Filter memory: in the block cache under cache_index_and_filter_blocks,
// else what the table readers hold; and the block cache tickers.
void AddCacheMemory(DB* db, ROCKSDB_NAMESPACE::ColumnFamilyHandle* cf,
                    const FilterStatsCollector& collector,
                    FilterReport* report) {
  FilterReport& r = *report;
  const auto* table = TableOptionsOf(db->GetOptions(cf));
  if (table != nullptr && table->cache_index_and_filter_blocks) {
    r.filter_cache_source = "block_cache";
    std::map<std::string, std::string> entry_stats;
    if (db->GetMapProperty(cf, DB::Properties::kBlockCacheEntryStats,
                           &entry_stats)) {
      using Keys = ROCKSDB_NAMESPACE::BlockCacheEntryStatsMapKeys;
      r.filter_cache_bytes =
          MapValue(entry_stats,
                   Keys::UsedBytes(
                       ROCKSDB_NAMESPACE::CacheEntryRole::kFilterBlock)) +
          MapValue(entry_stats,
                   Keys::UsedBytes(
                       ROCKSDB_NAMESPACE::CacheEntryRole::kFilterMetaBlock));
      r.filter_cache_age_seconds =
          MapValue(entry_stats, Keys::LastCollectionAgeSeconds());
      if (*r.filter_cache_age_seconds > collector.SecondsSinceStart()) {
        r.notes.push_back(
            "filter_cache_bytes is from RocksDB's block cache scan of " +
            std::to_string(*r.filter_cache_age_seconds) +
            " s ago, before this measurement began (it rescans at most "
            "every 10 s)");
      }
    }
  } else {
    r.filter_cache_source = "table_readers";
    r.filter_cache_bytes = r.filter_bytes_total;
  }
  db->GetIntProperty(cf, DB::Properties::kEstimateTableReadersMem,
                     &r.table_readers_mem);
  r.tickers = collector.TickersSinceStart();
}

}  // namespace

Status BuildFilterReport(DB* db, const FilterStatsCollector& collector,
                         const std::string& benchmark, FilterReport* report,
                         ROCKSDB_NAMESPACE::ColumnFamilyHandle* cf) {
  if (cf == nullptr) cf = db->DefaultColumnFamily();
  FilterReport r;
  r.benchmark = benchmark;
  r.threads = collector.threads();
  Status s = AddLevelFigures(db, cf, collector, &r);
  if (!s.ok()) return s;
  AddCacheMemory(db, cf, collector, &r);
  *report = std::move(r);
  return Status::OK();
}

}  // namespace monkey
