// A small, fast pull scanner over JSON text, for traces of millions of events where a DOM
// parser is too slow and too large. Throws ParseError with the byte offset on malformed input.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace dtsim::gui {

class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class JsonScanner {
 public:
  explicit JsonScanner(std::string_view text) : text_(text) {}

  // The next non-space character, without consuming it ('\0' at the end).
  char peek();
  void expect(char c);
  // Consumes c if it is next.
  bool accept(char c);
  // A string; the view points into the text, or into `scratch` when it had escapes.
  std::string_view string(std::string& scratch);
  double number();
  // A number, or a string holding one (some tools quote timestamps); 0 for null.
  double number_like(std::string& scratch);
  void skip_value();
  size_t offset() const { return pos_; }
  [[noreturn]] void fail(const char* what) const;

 private:
  std::string_view text_;
  size_t pos_ = 0;
  static constexpr int kMaxDepth = 256;
  int depth_ = 0;  // skip_value's nesting
};

// Iterates the members of an object: `for (JsonMembers m(s); m.next(key);) { ...value... }`.
class JsonMembers {
 public:
  explicit JsonMembers(JsonScanner& s) : s_(s) { s_.expect('{'); }
  bool next(std::string_view& key, std::string& scratch);

 private:
  JsonScanner& s_;
  bool first_ = true;
};

// Iterates the elements of an array: `for (JsonElements e(s); e.next();) { ...value... }`.
class JsonElements {
 public:
  explicit JsonElements(JsonScanner& s) : s_(s) { s_.expect('['); }
  bool next();

 private:
  JsonScanner& s_;
  bool first_ = true;
};

}  // namespace dtsim::gui
