// Strict option strings. See strict_string.h.
#include "monkey/table/strict_string.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace monkey {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The end of the digits from `i`.
size_t Digits(const std::string& s, size_t i) {
  while (i < s.size() && IsDigit(s[i])) ++i;
  return i;
}

// Whether `text` follows [+-]digits[.digits][e[+-]digits], with at least
// one digit before or after the point; sets *nonzero when a mantissa digit
// is not 0.
bool IsDecimal(const std::string& s, bool* nonzero) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  const size_t int_begin = i;
  i = Digits(s, i);
  size_t mantissa_digits = i - int_begin;
  *nonzero = s.find_first_of("123456789", int_begin) < i;
  if (i < s.size() && s[i] == '.') {
    const size_t frac_begin = ++i;
    i = Digits(s, i);
    mantissa_digits += i - frac_begin;
    *nonzero = *nonzero || s.find_first_of("123456789", frac_begin) < i;
  }
  if (mantissa_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const size_t exp_begin = i;
    i = Digits(s, i);
    if (i == exp_begin) return false;
  }
  return i == s.size();
}

}  // namespace

std::string ParseDecimal(const std::string& text, double* value) {
  bool nonzero = false;
  if (!IsDecimal(text, &nonzero)) {
    return Quoted(text) + " is not a decimal number";
  }
  errno = 0;
  const double parsed = std::strtod(text.c_str(), nullptr);
  // strtod says ERANGE for denormal results too; only a value that became 0
  // or infinite has lost what the text says.
  if (std::isinf(parsed) || (nonzero && parsed == 0)) {
    return Quoted(text) + " is out of range";
  }
  *value = parsed;
  return "";
}

std::string FormatNumber(double value) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.6g", value);
  return buf;
}

// The characters of a long text that a message shows.
constexpr size_t kShown = 60;

std::string Quoted(const std::string& text) {
  if (text.size() <= kShown) return "'" + text + "'";
  return "'" + text.substr(0, kShown) + "...' (" + std::to_string(text.size()) +
         " characters)";
}

std::string Elided(std::string message, const std::string& text) {
  if (text.size() <= kShown) return message;
  const std::string cut = text.substr(0, kShown) + "...";
  for (size_t at = message.find(text); at != std::string::npos;
       at = message.find(text, at + cut.size())) {
    message.replace(at, text.size(), cut);
  }
  return message;
}

std::string DuplicateOption(const std::string& text) {
  // "{a=1;b=2}" is "a=1;b=2" whole.
  const bool braced =
      text.size() >= 2 && text.front() == '{' && text.back() == '}';
  const std::string options = braced ? text.substr(1, text.size() - 2) : text;
  std::set<std::string> seen;
  size_t begin = 0;
  // Option by option at the top level: ';' inside braces belongs to a
  // nested value.
  while (begin < options.size()) {
    size_t end = begin;
    int depth = 0;
    for (; end < options.size(); ++end) {
      const char c = options[end];
      if (c == '{') ++depth;
      if (c == '}') --depth;
      if (c == ';' && depth == 0) break;
    }
    const std::string option = options.substr(begin, end - begin);
    const size_t eq = option.find('=');
    if (eq != std::string::npos) {
      std::string name = option.substr(0, eq);
      const size_t first = name.find_first_not_of(" \t");
      const size_t last = name.find_last_not_of(" \t");
      name = first == std::string::npos ? ""
                                        : name.substr(first, last - first + 1);
      if (!name.empty() && !seen.insert(name).second) return name;
    }
    begin = end + 1;
  }
  return "";
}

}  // namespace monkey
