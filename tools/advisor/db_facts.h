// The advisor's view of a database (monkey_plan --db): opens it read-only,
// without its LOCK, so that it works while another process has it open,
// and reads each column family's per-level facts from the table properties
// (through the filter report, report/filter_report.cc, for the filter kinds
// and model FPRs). The math is in util/advisor.h.
#pragma once

#include <string>
#include <vector>

#include "monkey/util/advisor.h"
#include "monkey/util/live_shape.h"

namespace monkey::advisor {

// monkey_plan's exit codes (its --help and docs/advisor.md list them).
enum ExitCode : int {
  kOk = 0,
  kBadArguments = 1,         // bad flags, or a plan that cannot be made
  kNoSuchPath = 2,           // --db does not exist
  kNotADatabase = 3,         // --db is not a RocksDB database
  kUnknownColumnFamily = 4,  // no column family named --column_family
  kNoFilters = 5,            // no SST file (in scope) has a filter
  kNoTableProperties = 6,    // table properties missing or unreadable
  kRocksDbError = 7,         // RocksDB refused otherwise (e.g. its comparator)
};

struct ColumnFamilyFacts {
  std::string name;
  std::vector<AdvisorLevel> levels;  // levels with files, top down
  std::vector<LiveFile> live_files;  // its SST files, for the live shape
  // The same with the filters they hold (filter_known): a tiered tree's
  // runs keep their files' filters (util/tiered_advisor.h).
  std::vector<LiveFile> files_with_filters;
  // Its OPTIONS file's: "level", "universal" or "fifo".
  std::string compaction_style = "level";
  uint64_t files = 0;
  // Partitioned filters (its options): metadata_block_size, about the
  // bytes of a partition; 0 for one full filter block a file.
  double filter_partition_bytes = 0;
};

// Reads the column family `column_family` of the database at `path`, or
// all of them if it is empty. Returns kOk and fills *facts (column families
// without SST files included, with no levels), or an exit code and a
// message that names the path and what is wrong. Notes worth telling (e.g.
// an OPTIONS file it could not load) go to *notes.
int ReadDbFacts(const std::string& path, const std::string& column_family,
                std::vector<ColumnFamilyFacts>* facts,
                std::vector<std::string>* notes, std::string* message);

}  // namespace monkey::advisor
