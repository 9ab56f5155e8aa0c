// The one place for RocksDB API differences between the versions this project
// builds against (7.8.3 to 11.x and upstream main), so that no other source
// needs a version #if.
//
// DB::Open and its friends: up to 9.10 they return a DB**; 9.11 to 10.x have
// both that and a std::unique_ptr<DB>* overload; 11.0 removed the DB** ones.
// OpenDB and OpenDBForReadOnly take a std::unique_ptr<DB>* on every version.
// They pick the overload RocksDB has (detected from its declarations, not its
// version number, so an engine's fork with either API works).
//
// DBOptions::skip_checking_sst_file_sizes_on_db_open: a no-op from 10.5,
// removed in 11.x. SkipCheckingSstFileSizesOnOpen sets it where it exists.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/status.h"

namespace monkey {
namespace compat_internal {

// open(out) for an out of type std::unique_ptr<DB>* when RocksDB has that
// overload, else open(&raw) with a DB* raw that then moves into *db. `open` is
// a generic lambda whose return type names the call, so that a missing
// overload is a substitution failure rather than an error.
template <typename OpenFn>
ROCKSDB_NAMESPACE::Status Open(OpenFn&& open,
                               std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db) {
  if constexpr (std::is_invocable_v<OpenFn&,
                                    std::unique_ptr<ROCKSDB_NAMESPACE::DB>*>) {
    return open(db);
  } else {
    ROCKSDB_NAMESPACE::DB* raw = nullptr;
    ROCKSDB_NAMESPACE::Status s = open(&raw);
    db->reset(raw);
    return s;
  }
}

template <typename T, typename = void>
struct HasSkipCheckingSstFileSizes : std::false_type {};
template <typename T>
struct HasSkipCheckingSstFileSizes<
    T, std::void_t<decltype(std::declval<T&>()
                                .skip_checking_sst_file_sizes_on_db_open)>>
    : std::true_type {};

}  // namespace compat_internal

// Opening does not stat every SST to check its size, where RocksDB still has
// the option (before 10.5; from then on it checks them in parallel).
template <typename Options = ROCKSDB_NAMESPACE::DBOptions>
void SkipCheckingSstFileSizesOnOpen(Options* options) {
  if constexpr (compat_internal::HasSkipCheckingSstFileSizes<Options>::value) {
    options->skip_checking_sst_file_sizes_on_db_open = true;
  }
}

// DB::Open of one column family (the default).
inline ROCKSDB_NAMESPACE::Status OpenDB(
    const ROCKSDB_NAMESPACE::Options& options, const std::string& path,
    std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db) {
  return compat_internal::Open(
      [&](auto* out) -> decltype(ROCKSDB_NAMESPACE::DB::Open(options, path,
                                                             out)) {
        return ROCKSDB_NAMESPACE::DB::Open(options, path, out);
      },
      db);
}

// DB::Open of several column families.
inline ROCKSDB_NAMESPACE::Status OpenDB(
    const ROCKSDB_NAMESPACE::DBOptions& options, const std::string& path,
    const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>& families,
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>* handles,
    std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db) {
  return compat_internal::Open(
      [&](auto* out) -> decltype(ROCKSDB_NAMESPACE::DB::Open(
                         options, path, families, handles, out)) {
        return ROCKSDB_NAMESPACE::DB::Open(options, path, families, handles,
                                           out);
      },
      db);
}

// DB::OpenForReadOnly of one column family (the default).
inline ROCKSDB_NAMESPACE::Status OpenDBForReadOnly(
    const ROCKSDB_NAMESPACE::Options& options, const std::string& path,
    std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db,
    bool error_if_wal_file_exists = false) {
  return compat_internal::Open(
      [&](auto* out) -> decltype(ROCKSDB_NAMESPACE::DB::OpenForReadOnly(
                         options, path, out, error_if_wal_file_exists)) {
        return ROCKSDB_NAMESPACE::DB::OpenForReadOnly(options, path, out,
                                                      error_if_wal_file_exists);
      },
      db);
}

// DB::OpenForReadOnly of several column families.
inline ROCKSDB_NAMESPACE::Status OpenDBForReadOnly(
    const ROCKSDB_NAMESPACE::DBOptions& options, const std::string& path,
    const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>& families,
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>* handles,
    std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db,
    bool error_if_wal_file_exists = false) {
  return compat_internal::Open(
      [&](auto* out) -> decltype(ROCKSDB_NAMESPACE::DB::OpenForReadOnly(
                         options, path, families, handles, out,
                         error_if_wal_file_exists)) {
        return ROCKSDB_NAMESPACE::DB::OpenForReadOnly(
            options, path, families, handles, out, error_if_wal_file_exists);
      },
      db);
}

}  // namespace monkey
