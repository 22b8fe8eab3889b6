// scripts/gpu-bundle and scripts/gpu-check, here without a GPU: the bundle stays small, carries
// every library its programs load but the C library's, the CUDA driver's and CUDA's own (the
// target's are used), runs in a clean environment up to the point where it needs a GPU (exit 3
// with the reason), and its dtsim loads neither SimGrid nor Qt. Skipped in a build without CUDA.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "tests/support/run_process.hpp"

namespace fs = std::filesystem;
using dtsim::test::ProcessResult;
using dtsim::test::temp_dir;

namespace {

ProcessResult shell(const std::string& command, const std::string& tag) {
  return dtsim::test::run_shell(command, "bundle-" + tag);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// Makes the bundle once for every test case.
const std::string& bundle() {
  static const std::string dir = [] {
    const std::string d = temp_dir("gpu-bundle") + "/b";
    const ProcessResult r =
        shell("BUILD_DIR='" + std::string(DTSIM_BINARY_DIR) + "' scripts/gpu-bundle --no-build '" + d + "'", "make");
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    return d;
  }();
  return dir;
}

bool cuda_built() {
  if (fs::exists(std::string(DTSIM_BINARY_DIR) + "/bundle/bin/dtsim")) return true;
  WARN("gpu bundle skipped: dtsim was built without CUDA");
  return false;
}

}  // namespace

TEST_CASE("the gpu bundle stays under 40 MiB and carries no SimGrid, ns-3 or Qt") {
  if (!cuda_built()) return;
  std::uintmax_t bytes = 0;
  for (const auto& e : fs::recursive_directory_iterator(bundle())) {
    if (e.is_regular_file()) bytes += e.file_size();
  }
  CHECK(bytes < 40u << 20);
  for (const auto& e : fs::directory_iterator(bundle() + "/lib")) {
    const std::string name = e.path().filename().string();
    INFO(name);
    for (const char* never :
         {"libsimgrid", "libns3", "libQt6", "libicu", "libcudart", "libcublas", "libnccl", "libc.so", "libcuda.so"}) {
      CHECK(name.find(never) != 0);
    }
  }
  for (const char* program : {"dtsim", "dtsim-real", "real_cuda_codec_probe", "calibrate_cuda_probe"}) {
    CHECK(fs::exists(bundle() + "/bin/" + program));
  }
}

TEST_CASE("with only the bundle's libraries, the loader misses nothing but CUDA's own") {
  if (!cuda_built()) return;
  for (const char* program : {"dtsim", "dtsim-real", "real_cuda_codec_probe", "calibrate_cuda_probe"}) {
    const ProcessResult r =
        shell("env -i LD_LIBRARY_PATH='" + bundle() + "/lib' /usr/bin/ldd '" + bundle() + "/bin/" + program + "'",
              std::string("ldd-") + program);
    INFO(program << "\n" << r.out);
    CHECK(r.out.find("libsimgrid") == std::string::npos);
    CHECK(r.out.find("libQt6") == std::string::npos);
    for (const std::string& line : lines(r.out)) {
      if (line.find("not found") == std::string::npos) continue;
      INFO(line);
      CHECK((line.find("libcudart.so") != std::string::npos || line.find("libcublas") != std::string::npos ||
             line.find("libnccl.so") != std::string::npos));
    }
  }
}

TEST_CASE("in a clean environment the bundle runs up to the GPU, and says there is none with exit code 3") {
  if (!cuda_built()) return;
  const ProcessResult r = shell("env -i bash -c '. \"" + bundle() +
                                    "/env.sh\" && dtsim-real scenarios/quickstart.yaml --backend cuda --quiet "
                                    "--out \"" +
                                    temp_dir("bundle-quickstart") + "\"'",
                                "clean-real");
  if (r.code == 0) {  // a machine with a GPU
    WARN("a GPU is here: the bundle's dtsim-real ran quickstart");
    return;
  }
  CHECK(r.code == 3);
  CHECK(r.err.find("dtsim-real: error: no CUDA device on this host") == 0);
  CHECK(lines(r.err).size() == 1);

  const ProcessResult calib =
      shell("env -i bash -c '. \"" + bundle() + "/env.sh\" && dtsim calibrate --backend cuda --out /dev/null'",
            "clean-calibrate");
  CHECK(calib.code == 3);
  CHECK(calib.err.find("dtsim: error: no CUDA device on this host") == 0);
}

TEST_CASE("gpu-check without a GPU refuses in one line with exit code 3") {
  if (!cuda_built()) return;
  const ProcessResult r =
      shell("env -i bash -c '\"" + bundle() + "/gpu-check\" \"" + temp_dir("bundle-check") + "\"'", "check");
  if (r.code != 3) {
    WARN("gpu-check found a GPU (exit " << r.code << ")");
    return;
  }
  CHECK(r.out.empty());
  REQUIRE(lines(r.err).size() == 1);
  CHECK(r.err.find("gpu-check: no GPU here: ") == 0);
}

TEST_CASE("the bundle's dtsim simulates with the analytical engine and refuses SimGrid by its key") {
  if (!cuda_built()) return;
  const std::string env = "env -i bash -c '. \"" + bundle() + "/env.sh\" && ";
  const ProcessResult sim =
      shell(env + "dtsim run scenarios/quickstart.yaml --engine analytical --out \"" + temp_dir("bundle-an") + "\"'",
            "analytical");
  INFO(sim.err);
  CHECK(sim.code == 0);
  const ProcessResult sg =
      shell(env + "dtsim run scenarios/quickstart.yaml --out \"" + temp_dir("bundle-sg") + "\"'", "simgrid");
  CHECK(sg.code == 2);
  CHECK(sg.err.find("run.engine: this dtsim was built without the SimGrid engine") != std::string::npos);
}
