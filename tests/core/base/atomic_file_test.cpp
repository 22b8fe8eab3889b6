// Results are written whole or not at all, and what a killed writer left behind is cleaned by the
// next write of the same file (core/base/atomic_file.hpp).
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/base/atomic_file.hpp"

namespace fs = std::filesystem;

namespace {

// A pid that no process has any more: a child that has exited and been reaped.
pid_t dead_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return pid;
}

void touch(const fs::path& p) { std::ofstream(p) << "partial"; }

}  // namespace

TEST_CASE("a write removes the temporaries of dead writers of the same file, and only those") {
  const fs::path dir = fs::temp_directory_path() / ("dtsim_atomic_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path target = dir / "trace.json";
  const fs::path dead = dir / ("trace.json.tmp." + std::to_string(dead_pid()));
  const fs::path alive = dir / ("trace.json.tmp." + std::to_string(::getppid()));  // our parent is alive
  const fs::path other = dir / ("metrics.json.tmp." + std::to_string(dead_pid()));
  const fs::path not_ours = dir / "trace.json.tmp.notapid";
  for (const auto& p : {dead, alive, other, not_ours}) touch(p);
  dtsim::write_file_atomic(target.string(), "{}\n");
  CHECK(fs::exists(target));
  CHECK(!fs::exists(dead));
  CHECK(fs::exists(alive));     // a writer still running
  CHECK(fs::exists(other));     // another file's: its own next write cleans it
  CHECK(fs::exists(not_ours));  // not a temporary of this shape
  CHECK(dtsim::remove_stale_temporaries((dir / "metrics.json").string()) == 1);
  CHECK(!fs::exists(other));
  fs::remove_all(dir);
}
