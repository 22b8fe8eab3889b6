// Text from outside (files, the command line) made safe for one terminal line: control bytes and
// bytes that are not UTF-8 are written as \xNN, so a binary file never prints raw bytes into an
// error line.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace dtsim {

// The offset of the first byte of `text` that does not start a valid UTF-8 sequence (overlong forms,
// surrogates and code points above U+10FFFF are invalid), or nullopt when all of it is UTF-8.
std::optional<size_t> first_invalid_utf8(std::string_view text);

// `text` with every control byte but tab, and every byte of an invalid UTF-8 sequence, as \xNN.
std::string printable(std::string_view text);

}  // namespace dtsim
