// The JSON pull scanner: whitespace, strings with escapes, numbers via from_chars, skipping.
#include "gui/model/json_scanner.hpp"

#include <charconv>
#include <string>

namespace dtsim::gui {
namespace {

void append_utf8(std::string& out, unsigned cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

void JsonScanner::fail(const char* what) const {
  throw ParseError(std::string(what) + " at byte " + std::to_string(pos_));
}

char JsonScanner::peek() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return c;
    ++pos_;
  }
  return '\0';
}

void JsonScanner::expect(char c) {
  if (peek() != c) fail((std::string("expected '") + c + "'").c_str());
  ++pos_;
}

bool JsonScanner::accept(char c) {
  if (peek() != c) return false;
  ++pos_;
  return true;
}

std::string_view JsonScanner::string(std::string& scratch) {
  expect('"');
  const size_t start = pos_;
  while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\\') ++pos_;
  if (pos_ >= text_.size()) fail("unterminated string");
  if (text_[pos_] == '"') return text_.substr(start, pos_++ - start);
  scratch.assign(text_.substr(start, pos_ - start));
  while (pos_ < text_.size() && text_[pos_] != '"') {
    char c = text_[pos_++];
    if (c != '\\') {
      scratch += c;
      continue;
    }
    if (pos_ >= text_.size()) break;
    c = text_[pos_++];
    switch (c) {
      case 'n': scratch += '\n'; break;
      case 't': scratch += '\t'; break;
      case 'r': scratch += '\r'; break;
      case 'b': scratch += '\b'; break;
      case 'f': scratch += '\f'; break;
      case 'u': {
        if (pos_ + 4 > text_.size()) fail("bad \\u escape");
        unsigned cp = 0;
        std::from_chars(text_.data() + pos_, text_.data() + pos_ + 4, cp, 16);
        pos_ += 4;
        append_utf8(scratch, cp);
        break;
      }
      default: scratch += c;
    }
  }
  if (pos_ >= text_.size()) fail("unterminated string");
  ++pos_;
  return scratch;
}

double JsonScanner::number() {
  peek();
  double v = 0;
  const char* begin = text_.data() + pos_;
  const auto [end, ec] = std::from_chars(begin, text_.data() + text_.size(), v);
  if (ec != std::errc() || end == begin) fail("expected a number");
  pos_ += static_cast<size_t>(end - begin);
  return v;
}

double JsonScanner::number_like(std::string& scratch) {
  const char c = peek();
  if (c == '"') {
    const std::string_view s = string(scratch);
    double v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
  }
  if (c == 'n' || c == 't' || c == 'f') {
    skip_value();
    return 0;
  }
  return number();
}

void JsonScanner::skip_value() {
  // Nesting deeper than any trace or metrics file has is refused: each level is a call (a hundred
  // thousand '[' overflowed the stack: found by fuzz_gui_trace).
  if (depth_ >= kMaxDepth) fail("values nested more than 256 deep");
  ++depth_;
  struct Leave {
    int& d;
    ~Leave() { --d; }
  } leave{depth_};
  std::string scratch;
  const char c = peek();
  if (c == '"') {
    string(scratch);
  } else if (c == '{') {
    std::string_view key;
    for (JsonMembers m(*this); m.next(key, scratch);) skip_value();
  } else if (c == '[') {
    for (JsonElements e(*this); e.next();) skip_value();
  } else if (c == 't' || c == 'f' || c == 'n') {
    while (pos_ < text_.size() && text_[pos_] >= 'a' && text_[pos_] <= 'z') ++pos_;
  } else {
    number();
  }
}

bool JsonMembers::next(std::string_view& key, std::string& scratch) {
  if (s_.accept('}')) return false;
  if (!first_) s_.expect(',');
  first_ = false;
  key = s_.string(scratch);
  s_.expect(':');
  return true;
}

bool JsonElements::next() {
  if (s_.accept(']')) return false;
  if (!first_) s_.expect(',');
  first_ = false;
  return true;
}

}  // namespace dtsim::gui
