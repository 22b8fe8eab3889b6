// HostComm for the threads of one process. Every collective is one exchange of byte strings
// through the team's slots between two barriers (a barrier: the last to arrive starts the next
// generation and wakes the rest); sub-teams are made by each color's first rank and handed to the
// others through the parent team. A failed rank sets the flag every team of the process shares,
// and waiting ranks throw TeamAborted.
#include "real/thread_team.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include <fmt/format.h>

namespace dtsim::real {
namespace {

struct TeamState {
  TeamState(int ranks, std::shared_ptr<std::atomic<bool>> failed)
      : size(ranks), slots(static_cast<size_t>(ranks)), made(static_cast<size_t>(ranks)), aborted(std::move(failed)) {}
  std::mutex mutex;
  std::condition_variable cv;
  int size;
  int arrived = 0;
  long generation = 0;
  std::vector<std::string> slots;                // each rank's bytes of the current exchange
  std::vector<std::shared_ptr<TeamState>> made;  // sub-teams being handed out by split()
  std::shared_ptr<std::atomic<bool>> aborted;    // shared by every team of the process
};

template <class T>
void reduce_into(std::span<T> values, const std::vector<std::string>& all, HostComm::Reduce op) {
  for (size_t r = 0; r < all.size(); ++r) {
    std::vector<T> v(values.size());
    std::memcpy(v.data(), all[r].data(), v.size() * sizeof(T));
    for (size_t i = 0; i < v.size(); ++i) {
      if (r == 0) {
        values[i] = v[i];
        continue;
      }
      switch (op) {
        case HostComm::Reduce::Sum: values[i] += v[i]; break;
        case HostComm::Reduce::Max: values[i] = std::max(values[i], v[i]); break;
        case HostComm::Reduce::Min: values[i] = std::min(values[i], v[i]); break;
      }
    }
  }
}

template <class T>
std::string bytes_of(std::span<const T> values) {
  std::string out(values.size() * sizeof(T), '\0');
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

class ThreadHostComm : public HostComm {
 public:
  ThreadHostComm(std::shared_ptr<TeamState> state, int rank) : state_(std::move(state)), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override { return state_->size; }
  int local_rank() const override { return rank_; }
  int local_size() const override { return state_->size; }
  int hosts() const override { return 1; }
  std::string started() const override { return fmt::format("--gpus gave {}", state_->size); }
  MPI_Comm mpi() const override { return MPI_COMM_NULL; }

  void barrier() override {
    TeamState& s = *state_;
    std::unique_lock lock(s.mutex);
    if (s.aborted->load()) throw TeamAborted();
    const long generation = s.generation;
    if (++s.arrived == s.size) {
      s.arrived = 0;
      ++s.generation;
      s.cv.notify_all();
      return;
    }
    while (s.generation == generation) {
      if (s.aborted->load()) throw TeamAborted();
      s.cv.wait_for(lock, std::chrono::milliseconds(50));
    }
  }

  std::vector<std::string> allgather(const std::string& mine) override {
    {
      std::lock_guard lock(state_->mutex);
      state_->slots[static_cast<size_t>(rank_)] = mine;
    }
    barrier();
    std::vector<std::string> all;
    {
      std::lock_guard lock(state_->mutex);
      all = state_->slots;
    }
    barrier();  // nobody writes the next exchange before everyone has read this one
    return all;
  }

  void broadcast(std::span<std::byte> data, int root) override {
    const std::vector<std::string> all =
        allgather(rank_ == root ? std::string(reinterpret_cast<const char*>(data.data()), data.size()) : std::string());
    const std::string& from = all.at(static_cast<size_t>(root));
    std::memcpy(data.data(), from.data(), std::min(from.size(), data.size()));
  }

  void allreduce(std::span<double> values, Reduce op) override {
    reduce_into(values, allgather(bytes_of<double>(values)), op);
  }
  void allreduce(std::span<float> values, Reduce op) override {
    reduce_into(values, allgather(bytes_of<float>(values)), op);
  }

  std::unique_ptr<HostComm> split(int color, int key) override {
    const int mine[2] = {color, key};
    const std::vector<std::string> all = allgather(bytes_of<int>(mine));
    std::vector<std::pair<int, int>> members;  // (key, rank) of my color
    for (size_t r = 0; r < all.size(); ++r) {
      int theirs[2];
      std::memcpy(theirs, all[r].data(), sizeof(theirs));
      if (color >= 0 && theirs[0] == color) members.emplace_back(theirs[1], static_cast<int>(r));
    }
    std::sort(members.begin(), members.end());
    const bool leader = !members.empty() && members.front().second == rank_;
    if (leader) {
      std::lock_guard lock(state_->mutex);
      state_->made[static_cast<size_t>(rank_)] =
          std::make_shared<TeamState>(static_cast<int>(members.size()), state_->aborted);
    }
    barrier();
    std::unique_ptr<HostComm> part;
    if (!members.empty()) {
      std::lock_guard lock(state_->mutex);
      const auto at = std::find_if(members.begin(), members.end(), [&](const auto& m) { return m.second == rank_; });
      part = std::make_unique<ThreadHostComm>(state_->made[static_cast<size_t>(members.front().second)],
                                              static_cast<int>(at - members.begin()));
    }
    barrier();
    if (leader) {
      std::lock_guard lock(state_->mutex);
      state_->made[static_cast<size_t>(rank_)].reset();
    }
    return part;
  }

  Clock aligned_clock() override {
    barrier();
    double start = rank_ == 0 ? steady_seconds() : 0.0;
    broadcast_value(start, 0);
    return Clock(&steady_seconds, 0.0, start);
  }

 private:
  std::shared_ptr<TeamState> state_;
  int rank_;
};

}  // namespace

int run_team(int ranks, const std::function<int(HostComm&)>& body) {
  auto state = std::make_shared<TeamState>(ranks, std::make_shared<std::atomic<bool>>(false));
  std::vector<std::exception_ptr> errors(static_cast<size_t>(ranks));
  std::vector<int> codes(static_cast<size_t>(ranks), 0);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      ThreadHostComm comm(state, r);
      try {
        codes[static_cast<size_t>(r)] = body(comm);
      } catch (...) {
        errors[static_cast<size_t>(r)] = std::current_exception();
        state->aborted->store(true);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::exception_ptr first, aborted;
  for (const std::exception_ptr& e : errors) {
    if (!e) continue;
    try {
      std::rethrow_exception(e);
    } catch (const TeamAborted&) {
      if (!aborted) aborted = e;
    } catch (...) {
      if (!first) first = e;
    }
  }
  if (first) std::rethrow_exception(first);
  if (aborted) std::rethrow_exception(aborted);
  return *std::max_element(codes.begin(), codes.end());
}

}  // namespace dtsim::real
