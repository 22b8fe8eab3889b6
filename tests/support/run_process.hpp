// Runs the dtsim binary as a user would and captures its exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace dtsim::test {

struct ProcessResult {
  int code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string temp_dir(const std::string& name) {
  const std::string dir = std::string(DTSIM_BINARY_DIR) + "/test-output/" + name;
  std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str());
  return dir;
}

// `command`, a shell fragment, run by the shell from the source folder; exit code, stdout and
// stderr captured (in build/test-output/proc-<tag>/).
inline ProcessResult run_shell(const std::string& command, const std::string& tag) {
  const std::string dir = temp_dir("proc-" + tag);
  const std::string cmd =
      "cd '" + std::string(DTSIM_SOURCE_DIR) + "' && " + command + " >'" + dir + "/out' 2>'" + dir + "/err'";
  const int status = std::system(cmd.c_str());
  ProcessResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir + "/out");
  r.err = slurp(dir + "/err");
  return r;
}

// `args` is a shell fragment; the command runs from the source folder.
inline ProcessResult run_dtsim(const std::string& args, const std::string& tag) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "'" + std::string(...).
  std::string command = "'";
  command += DTSIM_BINARY_DIR;
  command += "/bin/dtsim' ";
  command += args;
  return run_shell(command, tag);
}

}  // namespace dtsim::test
