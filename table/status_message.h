// The text of a failed Status without its code, for wrapping it in another
// Status: "Invalid argument: filter_uri 'x': monkey: ..." rather than one
// "Invalid argument:" per layer the error passed through.
#pragma once

#include <string>

#include "rocksdb/status.h"

namespace monkey {

inline std::string StatusMessage(const ROCKSDB_NAMESPACE::Status& s) {
  return s.getState() != nullptr ? std::string(s.getState()) : s.ToString();
}

}  // namespace monkey
