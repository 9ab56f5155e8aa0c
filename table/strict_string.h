// The strict reading of option strings that size memory, and short error
// text about them. RocksDB reads doubles with std::stod ("7abc" is 7,
// " 7" and "0x10" are numbers, "1e-400" is 0) and keeps the last of two
// values for one option; a filter budget must not be guessed at that way.
#pragma once

#include <string>

namespace monkey {

// Parses `text` as a plain decimal number, [+-]digits[.digits][e[+-]digits]
// and nothing else: no space, no hexadecimal, no inf or nan, and not one
// that rounds to 0 or to infinity although it names neither (1e-400,
// 1e400). Returns "" and sets *value, or says what is wrong.
std::string ParseDecimal(const std::string& text, double* value);

// A number for a message: 6 significant digits, never "0.000000" for 1e-30.
std::string FormatNumber(double value);

// `text` in quotes for a message, cut to its first 60 characters (and its
// length) when longer: a 100 kB options string makes a short error.
std::string Quoted(const std::string& text);

// `message` with each copy of a long `text` in it cut as Quoted cuts it:
// RocksDB's own messages repeat the whole string they failed on.
std::string Elided(std::string message, const std::string& text);

// In an options string "name=value;name=value;..." (braces nest, as in
// RocksDB's StringToMap), the first option name given twice, or "": RocksDB
// keeps the last value and drops the first without a word.
std::string DuplicateOption(const std::string& options);

}  // namespace monkey
