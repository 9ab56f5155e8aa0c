// What the crash-recovery test's child process (crash_loader.cc) writes, so
// that the parent (crash_recovery_test.cc) can check it after a SIGKILL:
// the keys, their values, and the protocol by which writes are acknowledged.
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>

namespace monkey::test {

// Key number i of a load. SplitMix64's finalizer is a bijection on 64 bits,
// so distinct numbers give distinct keys, spread over the whole key space:
// every run overlaps the files of the runs before it and compactions rewrite
// them, instead of appending ranges that RocksDB would only move.
inline std::string CrashKey(uint64_t i) {
  uint64_t z = i;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  char buf[24];
  snprintf(buf, sizeof(buf), "c%016" PRIx64, z);
  return buf;
}

inline std::string CrashValue(uint64_t i) {
  std::string value = std::to_string(i);
  value.resize(64, 'v');
  return value;
}

// The child writes keys first, first+1, ... in batches of kCrashBatch with
// WriteOptions::sync, and after each batch is acknowledged prints a line
// "acked <n>": keys first .. first+n-1 are durable. It also prints
// "flushed <level>" and "compacted <output level>" as flushes and
// compactions complete, so that the parent knows what files the run made
// before it died, however slow the disk or early the kill.
inline constexpr int kCrashBatch = 16;

}  // namespace monkey::test
