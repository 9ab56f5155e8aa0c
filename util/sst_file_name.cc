// SST file names. See sst_file_name.h.
#include "monkey/util/sst_file_name.h"

#include <charconv>

namespace monkey {

uint64_t SstFileNumber(std::string_view path) {
  const size_t slash = path.rfind('/');
  const std::string_view name =
      slash == std::string_view::npos ? path : path.substr(slash + 1);
  constexpr std::string_view kSuffix = ".sst";
  if (name.size() <= kSuffix.size() ||
      name.substr(name.size() - kSuffix.size()) != kSuffix) {
    return 0;
  }
  const std::string_view digits = name.substr(0, name.size() - kSuffix.size());
  uint64_t number = 0;
  const auto [end, error] =
      std::from_chars(digits.data(), digits.data() + digits.size(), number);
  return error == std::errc() && end == digits.data() + digits.size() ? number
                                                                      : 0;
}

}  // namespace monkey
