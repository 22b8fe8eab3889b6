// Typed errors of dtsim's libraries. Only main() turns them into exit codes:
// InputError (a person's mistake in a file or on the command line) -> 2, RuntimeError -> 1.
#pragma once

#include <stdexcept>
#include <string>

namespace dtsim {

// Where in a file (or on the command line) something was written. line/col are 1-based; 0 = unknown.
struct SourceLocation {
  std::string file;
  int line = 0;
  int col = 0;

  std::string str() const;
};

// A mistake in user input. what() is the one line the user sees (control bytes and bytes that are not
// UTF-8 escaped as \xNN, core/base/text.hpp):
//   scenarios/x.yaml:12:5: error: unknown key 'cluster.nodez' (did you mean 'nodes'?)
class InputError : public std::runtime_error {
 public:
  InputError(SourceLocation where, const std::string& message);
  explicit InputError(const std::string& message);  // no location known

  const SourceLocation& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

// Something failed while running (I/O, an engine failure). Exit code 1.
class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace dtsim
