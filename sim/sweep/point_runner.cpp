// A small process pool: fork a child per point, read its answer from a pipe, reap it.
// The child writes one message: 'O' + metrics JSON, or 'E' + an error line.
#include "sim/sweep/point_runner.hpp"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/run/metrics.hpp"
#include "sim/run.hpp"

namespace dtsim::sweep {
namespace {

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

[[noreturn]] void child_main(const Scenario& s, int fd, const PointWork& work) {
  std::string message;
  try {
    const std::string metrics = work(s).dump();
    message.reserve(metrics.size() + 1);
    message.push_back('O');
    message.append(metrics);
  } catch (const InputError& e) {
    message = fmt::format("E{}", e.what());
  } catch (const std::exception& e) {
    message = fmt::format("E{}", e.what());
  }
  write_all(fd, message);
  ::close(fd);
  ::_exit(0);
}

struct Child {
  pid_t pid = -1;
  size_t index = 0;
  std::string buffer;
};

class Pool {
 public:
  Pool(const std::vector<Scenario>& scenarios, const std::function<void(size_t, const nlohmann::json&)>& done,
       const PointWork& work, OnFailure on_failure)
      : scenarios_(scenarios), done_(done), work_(work), on_failure_(on_failure) {}
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  // Children still running when the points stop early (a stop check threw) are killed and reaped.
  ~Pool() {
    for (const auto& [fd, child] : children_) {
      ::kill(child.pid, SIGKILL);
      ::close(fd);
      while (::waitpid(child.pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }

  void launch(size_t index) {
    int fds[2];
    if (::pipe(fds) != 0) throw RuntimeError(fmt::format("sweep: pipe failed: {}", std::strerror(errno)));
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw RuntimeError(fmt::format("sweep: fork failed: {}", std::strerror(errno)));
    if (pid == 0) {
      // A point dies with the sweep (kill -9 of dtsim sweep leaves no simulation running); the check
      // after covers a sweep that died before the request was made.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);
      ::close(fds[0]);
      child_main(scenarios_[index], fds[1], work_);
    }
    ::close(fds[1]);
    children_.emplace(fds[0], Child{pid, index, {}});
  }

  size_t running() const { return children_.size(); }

  // Waits until at least one child has finished and handles it.
  void wait_one() {
    std::vector<pollfd> fds;
    for (const auto& [fd, child] : children_) fds.push_back(pollfd{fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) {
      throw RuntimeError(fmt::format("sweep: poll failed: {}", std::strerror(errno)));
    }
    for (const auto& p : fds) {
      if (p.revents == 0) continue;
      char buf[65536];
      const ssize_t n = ::read(p.fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      Child& child = children_.at(p.fd);
      if (n > 0) {
        child.buffer.append(buf, static_cast<size_t>(n));
        continue;
      }
      finish(p.fd, child);
    }
  }

  const std::optional<std::string>& failure() const { return failure_; }

 private:
  void finish(int fd, Child& child) {
    ::close(fd);
    int status = 0;
    while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
    }
    const Child c = std::move(child);
    children_.erase(fd);
    if (c.buffer.empty() || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fail(c.index,
           fmt::format("the simulation process died ({})",
                       WIFSIGNALED(status) ? fmt::format("signal {}, {}", WTERMSIG(status), strsignal(WTERMSIG(status)))
                                           : fmt::format("status {}", WEXITSTATUS(status))));
      return;
    }
    if (c.buffer[0] != 'O') {
      fail(c.index, c.buffer.substr(1));
      return;
    }
    done_(c.index, nlohmann::json::parse(c.buffer.begin() + 1, c.buffer.end()));
  }

  void fail(size_t index, const std::string& message) {
    if (on_failure_ == OnFailure::Report) {
      done_(index, failed_point(message));
    } else if (!failure_) {
      failure_ = fmt::format("sweep point {}: {}", index, message);
    }
  }

  const std::vector<Scenario>& scenarios_;
  const std::function<void(size_t, const nlohmann::json&)>& done_;
  const PointWork& work_;
  OnFailure on_failure_;
  std::map<int, Child> children_;
  std::optional<std::string> failure_;
};

}  // namespace

nlohmann::json failed_point(const std::string& message) { return {{"failed", message}}; }

std::optional<std::string> point_failure(const nlohmann::json& result) {
  const auto it = result.find("failed");
  if (it == result.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

nlohmann::json simulate_point(const Scenario& s, const PointHook& hook) {
  // Metrics only, on the fast paths where they apply; a hook reads every rank's records. A point that would not fit
  // in memory is refused, as `dtsim run` refuses it (sim/run.hpp).
  const sim::RunResult r = sim::run(s, {hook ? sim::Records::EveryRankKernels : sim::Records::None, true, {}});
  nlohmann::json metrics = run_metrics_json(r.metrics);
  if (hook) hook(s, r.plan, r.records, metrics);
  return metrics;
}

void run_points(const std::vector<Scenario>& scenarios, const std::vector<size_t>& pending, int jobs,
                const std::function<void(size_t index, const nlohmann::json& metrics)>& done, const PointHook& hook,
                OnFailure on_failure) {
  run_points_with(
      scenarios, pending, jobs, done, [&](const Scenario& s) { return simulate_point(s, hook); }, {}, on_failure);
}

void run_points_with(const std::vector<Scenario>& scenarios, const std::vector<size_t>& pending, int jobs,
                     const std::function<void(size_t index, const nlohmann::json& result)>& done, const PointWork& work,
                     const StopCheck& stop, OnFailure on_failure) {
  if (jobs < 1) throw InputError("--jobs: expected 1 or more");
  size_t next = 0;
  if (jobs == 1) {
    for (; next < pending.size() && scenarios[pending[next]].run.engine == Engine::Analytical; ++next) {
      const size_t index = pending[next];
      if (on_failure == OnFailure::Stop) {
        done(index, work(scenarios[index]));
      } else {
        std::optional<nlohmann::json> result;
        try {
          result = work(scenarios[index]);
        } catch (const std::exception& e) {  // as a child reports it ('E')
          result = failed_point(e.what());
        }
        done(index, *result);
      }
      if (stop) stop();
    }
  }
  Pool pool(scenarios, done, work, on_failure);
  while (next < pending.size() || pool.running() > 0) {
    while (!pool.failure() && next < pending.size() && pool.running() < static_cast<size_t>(jobs)) {
      pool.launch(pending[next++]);
    }
    if (pool.running() == 0) break;
    pool.wait_one();
    if (stop) stop();
  }
  if (pool.failure()) throw RuntimeError(*pool.failure());
}

}  // namespace dtsim::sweep
